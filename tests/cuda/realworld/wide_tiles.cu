// Constructs of reduction-style samples inside templates: dynamic shared memory declared in a
// member (a conversion operator), a block_tile_memory scratch, tiles wider than a warp with
// reduce and sync, group syncs and atomics on types that depend on template parameters.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
namespace cg = cooperative_groups;

template <class T> struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int smem_words[];
    return (T *)smem_words;
  }
};

template <class T, unsigned Block, unsigned Wide> __global__ void wide_sum(T *in, T *out) {
  T *partial = SharedMemory<T>();
  __shared__ cg::block_tile_memory<Block> scratch;
  auto cta = cg::this_thread_block(scratch);
  auto tile = cg::tiled_partition<Wide>(cta);
  T v = in[blockIdx.x * Block + threadIdx.x];
  v = cg::reduce(tile, v, cg::plus<T>());
  tile.sync();
  if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = v;
  cg::sync(cta);
  if (threadIdx.x == 0) {
    T s = 0;
    for (unsigned i = 0; i < tile.meta_group_size(); ++i) s += partial[i];
    out[blockIdx.x] = s;
    atomicAdd(&out[gridDim.x], s);
  }
}

// called from a template with explicit arguments: a call libclang leaves unresolved
template <unsigned Block, class T> __device__ void publish(T *out, T v) {
  if (threadIdx.x % 64 == 0) out[Block] = v;   // RACE
}

template <class T, unsigned Block, unsigned Wide> __global__ void wide_sum_racy(T *in, T *out) {
  T *partial = SharedMemory<T>();
  auto cta = cg::this_thread_block();
  cg::thread_block_tile<Wide> tile = cg::tiled_partition<Wide>(cta);
  T v = cg::reduce(tile, in[blockIdx.x * Block + threadIdx.x], cg::plus<T>());
  if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = v;   // RACE
  tile.sync();   // only the tile's warps: thread 0 reads the other tiles' partials unordered
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0] + partial[1] + partial[2] + partial[3];   // RACE
  publish<Block, T>(out, v);
}

int main() {
  int *in, *out;
  cudaMallocManaged(&in, 512 * sizeof(int));
  cudaMallocManaged(&out, 257 * sizeof(int));
  for (int i = 0; i < 512; ++i) in[i] = i % 7;
  for (int i = 0; i < 3; ++i) out[i] = 0;
  wide_sum<int, 256, 64><<<2, 256, 4 * sizeof(int)>>>(in, out);
  cudaDeviceSynchronize();
  printf("%d %d %d\n", out[0], out[1], out[2]);
  wide_sum_racy<int, 256, 64><<<1, 256, 4 * sizeof(int)>>>(in, out);
  cudaDeviceSynchronize();
  printf("%d\n", out[0]);
  return 0;
}
