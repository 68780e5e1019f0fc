// hirace runtime configuration shared by nvcc, the cpu backend and host tools.
#ifndef HIRACE_CONFIG_H
#define HIRACE_CONFIG_H

#include "cudacommon/qualifiers.h"

#endif  // HIRACE_CONFIG_H
