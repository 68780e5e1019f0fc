// cpu-backend stand-in for <device_launch_parameters.h>: cudaemu.h (force-included) provides its contents.
#include "../cudaemu.h"
