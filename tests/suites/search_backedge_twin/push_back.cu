// The race-free twin of ../search_backedge/push_back_raceBug.cu (tests/test_cltc_search.py): the same
// code, but a node pushes its value along a back edge (to a node of a lower id) with atomicMax, as the
// node pushed to updates its own slot. The suite's 5-node DAG has no back edge.

typedef int data_t;

#include "indigo_cuda.h"

__global__ void test_kernel(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv)
{
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < numv) {
    data_t v = data1[i];
    atomicMax(&data2[i], v);
    for (int j = nindex[i]; j < nindex[i + 1]; j++) {
      int k = nlist[j];
      if (k < i) {
        atomicMax(&data2[k], v);
      }
    }
  }
}

void serial_code(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv)
{
  for (int i = 0; i < numv; i++) {
    data2[i] = max(data2[i], data1[i]);
  }
  for (int i = 0; i < numv; i++) {
    for (int j = nindex[i]; j < nindex[i + 1]; j++) {
      if (nlist[j] < i) data2[nlist[j]] = max(data2[nlist[j]], data1[i]);
    }
  }
}

int verify_result(int* nindex, int* nlist, data_t* h_data1, data_t* h_data2, data_t* d_data1, data_t* d_data2, int numv, int nume, int blocks, int threadsperblock)
{
  for (int i = 0; i < numv; i++) {
    if (h_data2[i] != d_data2[i]) return 0;
  }
  return 1;
}
