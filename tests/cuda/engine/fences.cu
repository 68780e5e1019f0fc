// Fences of each scope, and libcu++'s atomic_thread_fence with its order and scope (the query's Fence).
#include <cuda/atomic>

__device__ int data, flag;

__global__ void produce(int v) {
  data = v;
  __threadfence();
  atomicExch(&flag, 1);
  __threadfence_block();
  __threadfence_system();
}

__global__ void consume(int *out) {
  while (atomicAdd(&flag, 0) == 0) {}
  cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
  cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_block);
  cuda::std::atomic_thread_fence(cuda::std::memory_order_seq_cst);
  *out = data;
}

// volatile accesses are strong (PTX: relaxed, system scope); plain ones are not
__global__ void spin(volatile int *ready, int *out) {
  while (ready[0] == 0) {}
  out[0] = *(volatile int *)out + 1;
}

// libcu++ operations with their memory orders
__global__ void ordered(int *f) {
  cuda::atomic_ref<int, cuda::thread_scope_device> r(*f);
  r.store(1, cuda::memory_order_release);
  while (r.load(cuda::memory_order_acquire) == 0) {}
  r.fetch_add(1);
}

int main() {
  int *out;
  cudaMalloc(&out, sizeof(int));
  produce<<<1, 1>>>(7);
  consume<<<1, 1>>>(out);
  cudaDeviceSynchronize();
  return 0;
}
