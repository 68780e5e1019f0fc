#include "corpus_util.h"
struct Particle { int x, y, vx, vy; };
__device__ void step(Particle *p, int w, int h) {
  p->x += p->vx; p->y += p->vy;
  if (p->x < 0 || p->x >= w) { p->vx = -p->vx; p->x += 2 * p->vx; }
  if (p->y < 0 || p->y >= h) { p->vy = -p->vy; p->y += 2 * p->vy; }
}
__global__ void move(Particle *ps, int n, int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Particle p = ps[i];
  for (int s = 0; s < steps; ++s) step(&p, 100, 80);
  ps[i] = p;
}
int main() {
  const int n = 400, steps = 50;
  Particle h[n], r[n];
  for (int i = 0; i < n; ++i) { h[i] = Particle{(int)(rnd() % 100), (int)(rnd() % 80), (int)(rnd() % 5) - 2, (int)(rnd() % 5) - 2}; r[i] = h[i]; }
  Particle *d = to_device(h, n);
  move<<<4, 128>>>(d, n, steps);
  to_host(h, d, n);
  bool ok = true; unsigned long long s = 0;
  for (int i = 0; i < n; ++i) {
    Particle p = r[i];
    for (int k = 0; k < steps; ++k) {
      p.x += p.vx; p.y += p.vy;
      if (p.x < 0 || p.x >= 100) { p.vx = -p.vx; p.x += 2 * p.vx; }
      if (p.y < 0 || p.y >= 80) { p.vy = -p.vy; p.y += 2 * p.vy; }
    }
    ok &= p.x == h[i].x && p.y == h[i].y && p.vx == h[i].vx && p.vy == h[i].vy;
    s = s * 3 + (unsigned)(h[i].x * 100 + h[i].y);
  }
  return verdict("particles_aos", ok, s);
}
