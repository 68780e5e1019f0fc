// indigo-bench bounds tree: the edge loop runs one past the node's last edge (boundsBug)

typedef int data_t;

#include "indigo_cuda.h"

__global__ void test_kernel(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv)
{
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < numv) {
    data_t v = data1[i];
    for (int j = nindex[i]; j <= nindex[i + 1]; j++) {
      v = min(v, data1[nlist[j]]);
    }
    data2[i] = v;
  }
}

void serial_code(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv)
{
  for (int i = 0; i < numv; i++) {
    data_t v = data1[i];
    for (int j = nindex[i]; j < nindex[i + 1]; j++) {
      v = min(v, data1[nlist[j]]);
    }
    data2[i] = v;
  }
}

int verify_result(int* nindex, int* nlist, data_t* h_data1, data_t* h_data2, data_t* d_data1, data_t* d_data2, int numv, int nume, int blocks, int threadsperblock)
{
  for (int i = 0; i < numv; i++) {
    if (h_data2[i] != d_data2[i]) return 0;
  }
  return 1;
}
