// Parse-only stand-in for <cuda_runtime_api.h>: cuda_decls.h (included first) declares what it provides.
#include "../cuda_decls.h"
