// hirace runtime configuration shared by nvcc, the cpu backend and host tools.
#ifndef HIRACE_CONFIG_H
#define HIRACE_CONFIG_H

// HIRACE_HD marks code compiled for both host and device.
#if defined(__CUDACC__)
#define HIRACE_HD __host__ __device__
#else
#define HIRACE_HD
#endif

#endif  // HIRACE_CONFIG_H
