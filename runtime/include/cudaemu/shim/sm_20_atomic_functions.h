// cpu-backend stand-in for <sm_20_atomic_functions.h>: cudaemu.h (force-included) provides its contents.
#include "../cudaemu.h"
