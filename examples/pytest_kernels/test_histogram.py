import numpy as np


def histogram(cuda_kernel, keys, nbins, grid=2, block=128):
    k = cuda_kernel("histogram.cu", "histogram")
    bins = np.zeros(nbins, dtype=np.uint32)
    k(grid, block, keys, len(keys), bins, nbins, shared_mem=4 * nbins)
    return bins


def test_histogram_counts_every_key(cuda_kernel):
    keys = (np.arange(5000, dtype=np.uint32) * 7919) % 1000
    bins = histogram(cuda_kernel, keys, 64)
    np.testing.assert_array_equal(bins, np.bincount(keys % 64, minlength=64))


def test_nonzero_bins_lists_each_once(cuda_kernel):
    keys = np.array([3, 3, 9, 17, 40, 9], dtype=np.uint32)
    bins = histogram(cuda_kernel, keys, 48)
    out = np.full(48, -1, dtype=np.int32)
    count = np.zeros(1, dtype=np.int32)
    cuda_kernel("histogram.cu", "nonzero_bins")(2, 32, bins, 48, out, count)
    assert count[0] == 4
    assert sorted(out[:4]) == [3, 9, 17, 40]
