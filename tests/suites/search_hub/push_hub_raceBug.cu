// An Indigo-style code of our own (tests/test_cltc_search.py): each node takes the minimum of its own
// value and its neighbours' into data2 (atomicMin); a hub, a node of more than 4 neighbours, also pushes
// its minimum to its neighbours' slots. raceBug: the push is a plain read-modify-write, while each
// neighbour updates its slot with atomicMin. A 5-node graph has no hub (no node has more than 4
// neighbours), so the racy line never runs on it. The race-free twin: ../search_hub_twin/push_hub.cu.

typedef int data_t;

#include "indigo_cuda.h"

__global__ void test_kernel(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv)
{
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < numv) {
    int beg = nindex[i], end = nindex[i + 1];
    data_t v = data1[i];
    for (int j = beg; j < end; j++) {
      v = min(v, data1[nlist[j]]);
    }
    atomicMin(&data2[i], v);
    if (end - beg > 4) {
      for (int j = beg; j < end; j++) {
        data2[nlist[j]] = min(data2[nlist[j]], v);  // raceBug: plain, against the neighbours' atomicMin
      }
    }
  }
}

void serial_code(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv)
{
  for (int i = 0; i < numv; i++) {
    data_t v = data1[i];
    for (int j = nindex[i]; j < nindex[i + 1]; j++) {
      v = min(v, data1[nlist[j]]);
    }
    data2[i] = min(data2[i], v);
    if (nindex[i + 1] - nindex[i] > 4) {
      for (int j = nindex[i]; j < nindex[i + 1]; j++) {
        data2[nlist[j]] = min(data2[nlist[j]], v);
      }
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
