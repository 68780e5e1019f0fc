__global__ void broken(int *a) {
  int i = threadIdx.x
  a[i] = 1;
}
