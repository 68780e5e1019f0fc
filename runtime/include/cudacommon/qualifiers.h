// The qualifiers every runtime header uses, spelled once: CCTK_HD (host and device code),
// CCTK_D (device code), CCTK_DEVICE_GLOBAL (a __device__ variable), CCTK_CONSTANT (a __constant__ one). Under nvcc they are CUDA's; on
// the cpu backend (CUDAEMU) and in host compilers they are empty.
#ifndef CCTK_QUALIFIERS_H
#define CCTK_QUALIFIERS_H

#if defined(__CUDACC__) && !defined(CUDAEMU)
#define CCTK_HD __host__ __device__
#define CCTK_D __device__
#define CCTK_DEVICE_GLOBAL __device__
#define CCTK_CONSTANT __constant__
#else
#define CCTK_HD
#define CCTK_D
#define CCTK_DEVICE_GLOBAL
#define CCTK_CONSTANT
#endif

#endif  // CCTK_QUALIFIERS_H
