// cltc search over a pytest suite (tests/test_cltc_search_more.py): its one test launches `scale` on
// small positive values with k 2, so it misses the arm of a negative value and the arm of a k above 8,
// which inputs near it reach (a value of x changed, k changed); a value near the float's largest makes
// the kernel write Inf (v * v overflows), which the test never showed.
__global__ void scale(int n, float k, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  if (v < 0.0f) v = -v;
  if (k > 8.0f) v = v + 1.0f;
  y[i] = v * v * k;
}
