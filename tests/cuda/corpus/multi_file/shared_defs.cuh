#pragma once
#define OFFSET 7
__host__ __device__ inline int square(int x) { return x * x; }
void launch_square_plus(const int *in, int *out, int n);
