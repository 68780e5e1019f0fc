#include "corpus_util.h"
__global__ void jacobi(const float *u, float *v, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x <= 0 || y <= 0 || x >= nx - 1 || y >= ny - 1) return;
  v[y * nx + x] = 0.25f * (u[y * nx + x - 1] + u[y * nx + x + 1] + u[(y - 1) * nx + x] + u[(y + 1) * nx + x]);
}
int main() {
  const int nx = 40, ny = 30, steps = 10;
  float u[nx * ny], r[nx * ny], tmp[nx * ny];
  for (int i = 0; i < nx * ny; ++i) u[i] = r[i] = (rnd() % 64);
  float *du = to_device(u, nx * ny), *dv = to_device(u, nx * ny);
  for (int s = 0; s < steps; ++s) {
    jacobi<<<dim3(3, 4), dim3(16, 8)>>>(du, dv, nx, ny);
    float *t = du; du = dv; dv = t;
    for (int y = 1; y < ny - 1; ++y) for (int x = 1; x < nx - 1; ++x)
      tmp[y * nx + x] = 0.25f * (r[y * nx + x - 1] + r[y * nx + x + 1] + r[(y - 1) * nx + x] + r[(y + 1) * nx + x]);
    for (int y = 1; y < ny - 1; ++y) for (int x = 1; x < nx - 1; ++x) r[y * nx + x] = tmp[y * nx + x];
  }
  to_host(u, du, nx * ny);
  bool ok = true; unsigned long long s = 0;
  for (int i = 0; i < nx * ny; ++i) { ok &= std::fabs(u[i] - r[i]) < 1e-3f; s += (unsigned long long)(u[i] * 16); }
  return verdict("stencil_2d_jacobi", ok, s);
}
