/* plain C (implicit void* conversion is valid C, not C++) */
#include <stdlib.h>
int *c_buffer(int n) { int *p = malloc(n * sizeof(int)); for (int i = 0; i < n; ++i) p[i] = i; return p; }
