// cpu-backend stand-in for <cuda_runtime.h>: cudaemu.h (force-included) provides its contents.
#include "../cudaemu.h"
