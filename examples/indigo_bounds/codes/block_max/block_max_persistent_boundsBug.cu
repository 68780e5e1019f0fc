// indigo-bench bounds tree: each thread reads the edge after its own (boundsBug: the last edge's thread reads past nlist)

typedef int data_t;

#include "indigo_cuda.h"

__global__ void test_kernel(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv)
{
  __shared__ data_t part[1024];
  const int t = threadIdx.x;
  for (int i = blockIdx.x; i < numv; i += gridDim.x) {
    data_t m = 0;
    for (int j = nindex[i] + t; j < nindex[i + 1]; j += blockDim.x) {
      m = max(m, data2[nlist[j + 1]]);
    }
    part[t] = m;
    __syncthreads();
    for (int stride = 1; stride < blockDim.x; stride *= 2) {
      if (t % (2 * stride) == 0 && t + stride < blockDim.x) {
        part[t] = max(part[t], part[t + stride]);
      }
      __syncthreads();
    }
    if (t == 0) data1[i] = part[0];
    __syncthreads();
  }
}

void serial_code(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv)
{
  for (int i = 0; i < numv; i++) {
    data_t m = 0;
    for (int j = nindex[i]; j < nindex[i + 1]; j++) {
      m = max(m, data2[nlist[j]]);
    }
    data1[i] = m;
  }
}

int verify_result(int* nindex, int* nlist, data_t* h_data1, data_t* h_data2, data_t* d_data1, data_t* d_data2, int numv, int nume, int blocks, int threadsperblock)
{
  for (int i = 0; i < numv; i++) {
    if (h_data1[i] != d_data1[i]) return 0;
  }
  return 1;
}
