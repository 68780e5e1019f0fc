// indigo-bench bounds tree: one thread per node without the node guard (boundsBug: threads past the last node read nindex past its end)

typedef int data_t;

#include "indigo_cuda.h"

__global__ void test_kernel(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv)
{
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  {
    for (int j = nindex[i]; j < nindex[i + 1]; j++) {
      int nei = nlist[j];
      atomicMin(&data1[nei], data2[i]);
    }
  }
}

void serial_code(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv)
{
  for (int i = 0; i < numv; i++) {
    for (int j = nindex[i]; j < nindex[i + 1]; j++) {
      int nei = nlist[j];
      data1[nei] = min(data1[nei], data2[i]);
    }
  }
}

int verify_result(int* nindex, int* nlist, data_t* h_data1, data_t* h_data2, data_t* d_data1, data_t* d_data2, int numv, int nume, int blocks, int threadsperblock)
{
  for (int i = 0; i < numv; i++) {
    if (h_data1[i] != d_data1[i]) return 0;
  }
  return 1;
}
