"""Kernel libraries: a .cu file's kernels built so that Python can launch them.

parse -> signatures (what each kernel takes) -> build (cpu: a shared library with one
C entry point per kernel; gpu: a cubin per source) -> manifest.json -> load (ctypes, or the
driver through cuda-python or pycuda: drivers.py) -> marshal Python arguments -> launch. The
pytest plugin of cltc is the main user.
"""
