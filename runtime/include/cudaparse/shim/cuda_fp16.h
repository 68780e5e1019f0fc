// Parse-only stand-in for <cuda_fp16.h>.
#include "../cuda_decls.h"
#include "../../cudacommon/fp16.h"
