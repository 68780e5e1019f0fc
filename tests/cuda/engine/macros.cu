#define AT(p, i) p[(i)]
#define N 32
__global__ void k(int *a, int *b) {
  __shared__ int s[N];
  s[threadIdx.x] = AT(a, threadIdx.x);
  __syncthreads();
  b[threadIdx.x] = s[(threadIdx.x + 1) % N];
}
