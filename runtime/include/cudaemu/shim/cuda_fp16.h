// cpu-backend stand-in for <cuda_fp16.h>: half precision stored as IEEE bits, computed in float.
#include "../cudaemu.h"
#include "../../cudacommon/fp16.h"
