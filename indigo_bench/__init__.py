"""indigo-bench: sweep hirace and its peers over Indigo-style labelled CUDA codes."""
__version__ = "0.1.0"
