"""hirace: a source-level data-race checker for CUDA programs (after HiRace, SC24)."""
__version__ = "0.1.0"
