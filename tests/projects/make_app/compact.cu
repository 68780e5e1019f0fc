#include <cstdio>
#include <cstdlib>
#include <vector>

// the nonzero elements of an array, each appended at the next free slot of the output (an atomic
// counter): their order is the order the blocks ran in, but the program checks them in index order.
// It passes when blocks run in ascending order (as the cpu backend runs them by default) and fails
// under other block orders: a schedule-dependent test (cltc amplify finds it). On a GPU, where the
// warps of a block interleave too, it fails in every order.
__global__ void compact(const int *in, int n, int *out, int *count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] != 0) out[atomicAdd(count, 1)] = in[i];
}

// compact N (a multiple of 256): keeps the multiples of 3 of 1..N-1; exit 1 when the output is not
// the nonzero elements in index order
int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = i % 3 == 0 ? i : 0;
  int *d_in, *d_out, *d_count, count = 0;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_out, n * sizeof(int));
  cudaMalloc(&d_count, sizeof(int));
  cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_count, &count, sizeof(int), cudaMemcpyHostToDevice);
  compact<<<n / 256, 256>>>(d_in, n, d_out, d_count);
  cudaMemcpy(&count, d_count, sizeof(int), cudaMemcpyDeviceToHost);
  std::vector<int> out(count > 0 && count <= n ? count : 0);
  cudaMemcpy(out.data(), d_out, out.size() * sizeof(int), cudaMemcpyDeviceToHost);
  int want = 0;
  for (int i = 1; i < n; ++i) want += h[i] != 0;
  bool ok = count == want;
  for (int k = 0; ok && k < count; ++k) ok = out[k] == 3 * (k + 1);
  std::printf("compact: %d kept%s\n", count, ok ? "" : ", not the nonzero elements in index order");
  return ok ? 0 : 1;
}
