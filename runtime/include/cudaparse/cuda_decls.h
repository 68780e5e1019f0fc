// Declarations of the CUDA language built-ins and runtime API, for PARSING ONLY.
//
// The instrument/ engine parses .cu files with libclang in CUDA mode
// (-x cuda --cuda-host-only -nocudainc -nocudalib).  The libclang wheel ships
// no clang resource headers, so clang's own CUDA wrapper headers are missing;
// this header stands in for them.  It declares (never defines) what CUDA
// programs use so that every machine, with or without a CUDA toolkit, builds
// the same syntax tree.  Programs are compiled with nvcc (gpu backend) or
// against runtime/include/cudaemu (cpu backend), never against this file.
#ifndef CUDAPARSE_CUDA_DECLS_H
#define CUDAPARSE_CUDA_DECLS_H

#include "language_decls.h"   // the language: qualifiers, built-ins, intrinsics, atomics, math
#include "api_decls.h"        // the runtime API

#endif  // CUDAPARSE_CUDA_DECLS_H
