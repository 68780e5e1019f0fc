// indigo-bench bounds tree: the node guard off by one (boundsBug)

typedef int data_t;

#include "indigo_cuda.h"

__global__ void test_kernel(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv)
{
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i <= numv) {
    for (int j = nindex[i]; j < nindex[i + 1]; j++) {
      int nei = nlist[j];
      if (i < nei && nei < numv) {
        atomicMax(&data1[0], data2[nei]);
      }
    }
  }
}

void serial_code(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv)
{
  for (int i = 0; i < numv; i++) {
    for (int j = nindex[i]; j < nindex[i + 1]; j++) {
      int nei = nlist[j];
      if (i < nei) {
        data1[0] = max(data1[0], data2[nei]);
      }
    }
  }
}

int verify_result(int* nindex, int* nlist, data_t* h_data1, data_t* h_data2, data_t* d_data1, data_t* d_data2, int numv, int nume, int blocks, int threadsperblock)
{
  return h_data1[0] == d_data1[0];
}
