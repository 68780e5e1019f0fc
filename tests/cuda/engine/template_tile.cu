// A tile whose size is a template argument: its element accesses have the element's size,
// and a row of it taken as a pointer is not an access.
template <int B> __global__ void tile(float *out, const float *in) {
  __shared__ float t[B][B];
  t[threadIdx.y][threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  float *row = t[threadIdx.y];
  out[threadIdx.x] = row[threadIdx.x] + t[threadIdx.x][threadIdx.y];
}
void launch(float *out, const float *in) { tile<16><<<1, dim3(16, 16)>>>(out, in); }
