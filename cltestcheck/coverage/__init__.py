"""cltc coverage: branch, loop and barrier coverage of CUDA kernels over a test suite."""
