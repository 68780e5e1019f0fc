// Tiles updated in place between barriers, whose indices keep the threads apart (instrument/apart.py):
// a triangular solve and a wavefront, race-free, and forms of them that race.
#include <cstdio>
#define B 16

__global__ void solve(float *m) {   // race-free in blocks of B x 1 threads
  __shared__ float s[B][B];
  int i, j;
  for (i = 0; i < B; i++) s[i][threadIdx.x] = m[i * B + threadIdx.x];
  __syncthreads();
  for (i = 0; i < B - 1; i++) {
    if (threadIdx.x > i) {
      for (j = 0; j < i; j++) s[threadIdx.x][i] -= s[threadIdx.x][j] * s[j][i];
      s[threadIdx.x][i] /= s[i][i];
    }
    __syncthreads();
    if (threadIdx.x > i) {
      for (j = 0; j < i + 1; j++) s[i + 1][threadIdx.x] -= s[i + 1][j] * s[j][threadIdx.x];
    }
    __syncthreads();
  }
  if (threadIdx.y == 0)
    for (i = 1; i < B; i++) m[i * B + threadIdx.x] = s[i][threadIdx.x];
}

__global__ void solve_ge(float *m) {   // thread i updates s[i][i] while the threads above read it
  __shared__ float s[B][B];
  int i, j;
  for (i = 0; i < B; i++) s[i][threadIdx.x] = m[i * B + threadIdx.x];
  __syncthreads();
  for (i = 0; i < B - 1; i++) {
    if (threadIdx.x >= i) {
      for (j = 0; j < i; j++) s[threadIdx.x][i] -= s[threadIdx.x][j] * s[j][i];
      s[threadIdx.x][i] /= s[i][i];
    }
    __syncthreads();
  }
  for (i = 1; i < B; i++) m[i * B + threadIdx.x] = s[i][threadIdx.x];
}

__global__ void sweep(float *m) {   // race-free in blocks of at most B + 1 threads
  __shared__ float s[B][B];
  if (threadIdx.x < B)
    for (int i = 0; i < B; i++) s[i][threadIdx.x] = m[i * B + threadIdx.x];
  __syncthreads();
  for (int i = 0; i < B - 2; i++) {
    if (threadIdx.x > i) {
      for (int j = 0; j < i + 1; j++) s[i + 1][threadIdx.x] -= s[i + 1][j] * s[j][threadIdx.x];
    }
    __syncthreads();
  }
  if (threadIdx.x < B) m[threadIdx.x] = s[B - 1][threadIdx.x];
}

__global__ void wave(int *out) {   // anti-diagonal m + 2 written from diagonals m and m + 1
  __shared__ int t[B + 1][B + 1];
  int tx = threadIdx.x;
  t[tx + 1][0] = tx;
  t[0][tx + 1] = -tx;
  if (tx == 0) t[0][0] = 0;
  __syncthreads();
  for (int m = 0; m < B; m++) {
    if (tx <= m) {
      int x = tx + 1, y = m - tx + 1;
      int a = t[y - 1][x - 1], b = t[y][x - 1], c = t[y - 1][x];
      t[y][x] = (a > b ? (a > c ? a : c) : (b > c ? b : c)) + 1;
    }
    __syncthreads();
  }
  out[tx] = t[B][tx + 1];
}

__global__ void wave_skew(int *out) {   // reads the word its left neighbour writes in the same step
  __shared__ int t[B + 1][B + 1];
  int tx = threadIdx.x;
  t[tx + 1][0] = tx;
  t[0][tx + 1] = -tx;
  if (tx == 0) t[0][0] = 0;
  __syncthreads();
  for (int m = 0; m < B - 1; m++) {
    if (tx <= m) {
      int x = tx + 1, y = m - tx + 1;
      t[y][x] = t[y + 1][x - 1] + 1;
    }
    __syncthreads();
  }
  out[tx] = t[B][tx + 1];
}

__global__ void wrap(float *out) {   // the write after a round's barrier meets the next round's reads
  __shared__ float s[B + 1];
  if (threadIdx.x == 0) s[0] = 1.f;
  __syncthreads();
  for (int i = 0; i < B; i++) {
    float v = s[i];
    __syncthreads();
    if (threadIdx.x == 0) s[i + 1] = v + 1.f;
  }
  __syncthreads();
  out[threadIdx.x] = s[B];
}

int main() {
  float *m, *f;
  int *w;
  cudaMalloc(&m, 6 * B * B * sizeof(float));
  cudaMalloc(&f, 64 * sizeof(float));
  cudaMalloc(&w, 64 * sizeof(int));
  float h[B * B];
  for (int i = 0; i < B * B; i++) h[i] = (i % (B + 1) == 0) ? 4.f : 1.f / (1 + i % 7);
  for (int k = 0; k < 6; k++) cudaMemcpy(m + k * B * B, h, sizeof(h), cudaMemcpyHostToDevice);
  solve<<<1, 16>>>(m);                      // launch 1: no race
  solve<<<1, dim3(16, 2)>>>(m + B * B);     // launch 2: the two rows of threads share every word
  solve_ge<<<1, 16>>>(m + 2 * B * B);       // launch 3: races
  sweep<<<1, 16>>>(m + 3 * B * B);          // launch 4: no race
  sweep<<<1, 32>>>(m + 4 * B * B);      // launch 5: thread 17 reads s[j][17], thread 1 writes s[j + 1][1]
  wave<<<1, 16>>>(w);                       // launch 6: no race
  wave_skew<<<1, 16>>>(w + B);              // launch 7: races
  wrap<<<1, 16>>>(f);                       // launch 8: races
  cudaDeviceSynchronize();
  float r[B * B];
  cudaMemcpy(r, m, sizeof(r), cudaMemcpyDeviceToHost);
  int o[B];
  cudaMemcpy(o, w, sizeof(o), cudaMemcpyDeviceToHost);
  float sum = 0.f;
  for (int i = 0; i < B * B; i++) sum += r[i];
  printf("solve %.3f wave %d\n", sum, o[0]);   // t[B][1]: written in the last step
  return 0;
}
