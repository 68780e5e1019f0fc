// A miniature stand-in for Indigo's `indigo_cuda.h` (written for this project, not Indigo's file):
// the same conventions, so that indigo-bench can be tried and tested without the real suite.
//
// A code defines `data_t`, includes this header, and defines test_kernel, serial_code and
// verify_result. main() reads an ECLgraph file, fills two data arrays with rand(), launches
// test_kernel once, runs serial_code on copies, and prints whether the results agree.
//
//   usage: prog input.egr threads_per_block num_blocks
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

struct ECLgraph {
  int nodes;
  int edges;
  int* nindex;  // nodes + 1 entries: the neighbours of v are nlist[nindex[v] .. nindex[v+1])
  int* nlist;   // edges entries
};

static void indigo_fail(const char* what, const char* fname) {
  fprintf(stderr, "ERROR: %s: %s\n", fname, what);
  exit(-1);
}

ECLgraph readECLgraph(const char* const fname) {
  ECLgraph g;
  FILE* f = fopen(fname, "rb");
  if (f == NULL) indigo_fail("could not open the file", fname);
  if (fread(&g.nodes, sizeof(int), 1, f) != 1) indigo_fail("could not read the node count", fname);
  if (fread(&g.edges, sizeof(int), 1, f) != 1) indigo_fail("could not read the edge count", fname);
  printf("input graph: %d nodes and %d edges\n", g.nodes, g.edges);
  if (g.nodes < 1 || g.edges < 0) indigo_fail("node or edge count too low", fname);
  g.nindex = (int*)malloc((g.nodes + 1) * sizeof(int));
  g.nlist = (int*)malloc((g.edges > 0 ? g.edges : 1) * sizeof(int));
  if (g.nindex == NULL || g.nlist == NULL) indigo_fail("out of memory", fname);
  if (fread(g.nindex, sizeof(int), g.nodes + 1, f) != (size_t)(g.nodes + 1)) indigo_fail("truncated nindex", fname);
  if (fread(g.nlist, sizeof(int), g.edges, f) != (size_t)g.edges) indigo_fail("truncated nlist", fname);
  fclose(f);
  return g;
}

void freeECLgraph(ECLgraph* g) {
  free(g->nindex);
  free(g->nlist);
  g->nindex = NULL;
  g->nlist = NULL;
}

__global__ void test_kernel(int* nindex, int* nlist, data_t* data1, data_t* data2, int n);
void serial_code(int* nindex, int* nlist, data_t* data1, data_t* data2, int n);
int verify_result(int* nindex, int* nlist, data_t* h_data1, data_t* h_data2, data_t* d_data1,
                  data_t* d_data2, int n, int e, int blocks, int threadsperblock);

int main(int argc, char* argv[]) {
  if (argc != 4) {
    fprintf(stderr, "USAGE: %s input_file_name threads_per_block num_blocks\n", argv[0]);
    exit(-1);
  }
  ECLgraph g = readECLgraph(argv[1]);
  int threadsPerBlock = atoi(argv[2]);
  if (threadsPerBlock < 1 || threadsPerBlock > 1024) {
    fprintf(stderr, "ERROR: threads_per_block must be between 1 and 1024\n");
    exit(-1);
  }
  int numBlocks = atoi(argv[3]);
  if (numBlocks < 1) {
    fprintf(stderr, "ERROR: num_blocks must be at least 1\n");
    exit(-1);
  }

  int n = g.nodes;
  int e = g.edges > 0 ? g.edges : 1;
  int s = n > e ? n : e;
  data_t* data1 = (data_t*)malloc(s * sizeof(data_t));
  data_t* data2 = (data_t*)malloc(s * sizeof(data_t));
  data_t* h_data1 = (data_t*)malloc(s * sizeof(data_t));
  data_t* h_data2 = (data_t*)malloc(s * sizeof(data_t));
  data1[0] = h_data1[0] = 0;
  data2[0] = h_data2[0] = 0;
  for (int i = 1; i < s; i++) h_data1[i] = data1[i] = rand() % n;
  for (int i = 1; i < s; i++) h_data2[i] = data2[i] = rand() % e;

  int* d_nindex;
  int* d_nlist;
  data_t* d_data1;
  data_t* d_data2;
  cudaMalloc((void**)&d_nindex, (n + 1) * sizeof(int));
  cudaMalloc((void**)&d_nlist, e * sizeof(int));
  cudaMalloc((void**)&d_data1, s * sizeof(data_t));
  cudaMalloc((void**)&d_data2, s * sizeof(data_t));
  cudaMemcpy(d_nindex, g.nindex, (n + 1) * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_nlist, g.nlist, g.edges * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_data1, data1, s * sizeof(data_t), cudaMemcpyHostToDevice);
  cudaMemcpy(d_data2, data2, s * sizeof(data_t), cudaMemcpyHostToDevice);

  test_kernel<<<numBlocks, threadsPerBlock>>>(d_nindex, d_nlist, d_data1, d_data2, n);

  cudaMemcpy(data1, d_data1, s * sizeof(data_t), cudaMemcpyDeviceToHost);
  cudaMemcpy(data2, d_data2, s * sizeof(data_t), cudaMemcpyDeviceToHost);

  serial_code(g.nindex, g.nlist, h_data1, h_data2, n);
  if (verify_result(g.nindex, g.nlist, h_data1, h_data2, data1, data2, n, g.edges, numBlocks, threadsPerBlock)) {
    printf("result matches serial code\n");
  } else {
    printf("result differs from serial code\n");
  }

  cudaFree(d_nindex);
  cudaFree(d_nlist);
  cudaFree(d_data1);
  cudaFree(d_data2);
  free(data1);
  free(data2);
  free(h_data1);
  free(h_data2);
  freeECLgraph(&g);
  cudaDeviceReset();
  return 0;
}
