import numpy as np


def test_scale_squares(cuda_kernel):
    x = np.arange(1, 9, dtype=np.float32)
    y = np.zeros(8, dtype=np.float32)
    cuda_kernel("scale.cu", "scale")(1, 32, 8, 2.0, x, y)
    np.testing.assert_allclose(y, x * x * 2)
