#include "corpus_util.h"
__global__ void mix(const float4 *a, const int2 *b, float4 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 v = a[i];
  int2 w = b[i];
  out[i] = make_float4(v.x + w.x, v.y + w.y, v.z * 2.0f, v.w - 1.0f);
}
int main() {
  const int n = 200;
  float4 a[n], o[n];
  int2 b[n];
  for (int i = 0; i < n; ++i) { a[i] = make_float4(i, i + 1, i + 2, i + 3); b[i] = make_int2(rnd() % 10, rnd() % 10); }
  float4 *da = to_device(a, n), *dout;
  int2 *db = to_device(b, n);
  CK(cudaMalloc(&dout, sizeof o));
  mix<<<2, 128>>>(da, db, dout, n);
  to_host(o, dout, n);
  bool ok = sizeof(float4) == 16 && sizeof(int2) == 8; unsigned long long s = 0;
  for (int i = 0; i < n; ++i) {
    ok &= o[i].x == a[i].x + b[i].x && o[i].y == a[i].y + b[i].y && o[i].z == a[i].z * 2 && o[i].w == a[i].w - 1;
    s = s * 7 + (unsigned long long)(o[i].x + o[i].y + o[i].z + o[i].w);
  }
  return verdict("vector_types", ok, s);
}
