// cpu-backend stand-in for <cuda_profiler_api.h>: cudaemu.h (force-included) provides its contents.
#include "../cudaemu.h"
