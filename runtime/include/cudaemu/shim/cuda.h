// cpu-backend stand-in for <cuda.h>: cudaemu.h (force-included) provides its contents.
#include "../cudaemu.h"
