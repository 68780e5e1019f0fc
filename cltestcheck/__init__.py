"""cltc: test adequacy for CUDA kernels: coverage, mutation testing, block-schedule amplification."""
__version__ = "0.1.0"
