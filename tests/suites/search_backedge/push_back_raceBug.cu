// An Indigo-style code of our own (tests/test_cltc_search.py): each node raises its own slot of data2 to
// its value (atomicMax), and pushes its value along every back edge, an edge to a node of a lower id,
// into that node's slot. raceBug: the push is a plain read-modify-write, while the node pushed to
// updates its own slot with atomicMax. The suite's 5-node DAG (indigo-bench's DAG_5n_5e, whose edges
// all go from lower to higher ids) has no back edge, so the racy line never runs on it; a cycle, an
// edge's reverse or a generated graph of another kind has one. The race-free twin:
// ../search_backedge_twin/push_back.cu.

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
        data2[k] = max(data2[k], v);  // raceBug: plain, against node k's own atomicMax
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
