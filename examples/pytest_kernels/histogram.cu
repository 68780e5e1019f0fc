// Histogram of keys into nbins bins (per-block counts in shared memory), and the
// list of bins that are not empty.

__global__ void histogram(const unsigned *keys, int n, unsigned *bins, int nbins) {
  extern __shared__ unsigned local[];
  for (int b = threadIdx.x; b < nbins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[keys[i] % nbins], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < nbins; b += blockDim.x)
    if (local[b] > 0) atomicAdd(&bins[b], local[b]);
}

// Appends the index of every non-empty bin to out; count ends as their number.
// The order of out depends on which threads get there first.
__global__ void nonzero_bins(const unsigned *bins, int nbins, int *out, int *count) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < nbins && bins[b] != 0) out[atomicAdd(count, 1)] = b;
}
