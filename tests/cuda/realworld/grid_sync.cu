#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int *a) { a[blockIdx.x] = 1; cg::this_grid().sync(); a[0] += 0; }
int main() { int *a; cudaMalloc(&a, 64); k<<<2, 1>>>(a); cudaDeviceSynchronize(); return 0; }
