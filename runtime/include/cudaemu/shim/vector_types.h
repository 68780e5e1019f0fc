// cpu-backend stand-in for <vector_types.h>: cudaemu.h (force-included) provides its contents.
#include "../cudaemu.h"
