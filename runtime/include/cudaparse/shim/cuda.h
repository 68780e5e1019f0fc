// Parse-only stand-in for <cuda.h>: everything it provides is declared in cuda_decls.h,
// which the instrument/ parser includes first.
#include "../cuda_decls.h"
