// cpu-backend stand-in for <device_functions.h>: cudaemu.h (force-included) provides its contents.
#include "../cudaemu.h"
