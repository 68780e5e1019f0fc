import numpy as np
import pytest


def reference(a, x, y):
    return (a * x + y).astype(np.float32)


def test_saxpy_whole_blocks(cuda_kernel):
    saxpy = cuda_kernel("saxpy.cu", "saxpy")
    x = np.arange(1024, dtype=np.float32)
    y = np.full(1024, 3.0, dtype=np.float32)
    want = reference(np.float32(2.0), x, y)
    saxpy(4, 256, 1024, 2.0, x, y)
    np.testing.assert_array_equal(y, want)


def test_saxpy_ragged_tail(cuda_kernel):
    saxpy = cuda_kernel("saxpy.cu", "blas::saxpy")
    x = np.linspace(-1, 1, 1000, dtype=np.float32)
    y = np.ones(1000, dtype=np.float32)
    want = reference(np.float32(-0.5), x, y)
    saxpy(4, 256, 1000, -0.5, x, y)      # 1024 threads for 1000 elements
    np.testing.assert_array_equal(y, want)


def test_saxpy_checks_arguments(cuda_kernel):
    saxpy = cuda_kernel("saxpy.cu", "saxpy")
    with pytest.raises(TypeError, match="parameter 'x'.*float32, got float64"):
        saxpy(1, 32, 4, 1.0, np.zeros(4), np.zeros(4, np.float32))
