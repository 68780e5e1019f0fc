// cudaemu: run CUDA programs on the CPU (the cpu backend).
//
// The instrument/ engine lowers what a host compiler cannot parse (launches,
// __shared__ locals, extern __shared__); this header supplies the rest:
// the built-ins, the runtime API subset, and the execution model.
//
// Execution model: every CUDA thread is a fiber. A block's fibers run
// interleaved on one OS thread, switching only at barriers, warp collectives
// and (when a seed asks for it) at instrumented memory accesses; blocks run
// one after another in the order CUDAEMU_BLOCK_ORDER gives. Barrier
// divergence and deadlock stop the program with a report and exit code 86/87.
//
// Where things are: types.h (vector types, dim3, API types), fiber.h (the switch), state.h (a
// launch's blocks, warps and tiles; options; faults), scheduler.h (which thread runs, barriers,
// stacks, the grid loop), collectives.h (warp and tile collectives), builtins.h (threadIdx,
// __syncthreads, shared memory), launch.h (launches), cudaemu_device.h (atomics, shuffles,
// intrinsics, math), cudaemu_api.h (the runtime API), registry.h (kernels named by address:
// cudaLaunchKernel), graphs.h (CUDA graphs, stream capture; graphs_absent.h where CUDAEMU_GRAPHS is 0).
//
// Environment: CUDAEMU_BLOCK_ORDER=asc|desc|random|<comma list of linear ids>,
// CUDAEMU_SEED=<n> (seeded block order and thread switches), CUDAEMU_SWITCH=<p>
// (switch probability at instrumented accesses, default 0.25 when seeded),
// CUDAEMU_STACK_KB (fiber stack, default 64), CUDAEMU_EXITED_ARRIVE=1 (count
// exited threads as arrived at __syncthreads, as hardware happens to do),
// CUDAEMU_DEVICE_MB (device memory in MiB: device allocations past it fail; default no cap).
#ifndef CUDAEMU_CUDAEMU_H
#define CUDAEMU_CUDAEMU_H

// libcu++ (<cuda/atomic>, <cuda/std/...>) runs on the host as it is once its configuration has
// been read as a host compiler's: here, before __CUDACC__ is defined below. (The cpu backend puts
// the toolkit's library directory on the include path: instrument/toolchain.library_include_dirs.)
#if defined(__has_include) && !defined(__CUDACC__)
#if __has_include(<cuda/std/version>)
#include <cuda/std/version>
#endif
#endif

// what nvcc's cuda_runtime.h brings in implicitly
#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <new>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#include <dlfcn.h>
#include <elf.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
// libstdc++ 13 writes __attribute__((__noinline__)): include what uses it
// before __noinline__ becomes a macro below (their include guards keep it so)
#include <memory>
#include <string>

#define CUDAEMU 1
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __launch_bounds__(...)
#define __maxnreg__(n)
#define __local_maxnreg__(n)
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __grid_constant__
#define CUDART_CB
#define __align__(n) __attribute__((aligned(n)))
// __shared__ is lowered by the instrument/ engine; one that is left means a
// construct the engine could not lower (for example inside a macro).
#define __shared__ static_assert(false, "cudaemu: a __shared__ declaration was not lowered (is it inside a macro?)");

#include "types.h"

namespace cudaemu {
using namespace ::cctk::exit_code;   // kExitBarrierDivergence, kExitDeadlock, kExitEmulationFault
}  // namespace cudaemu

// one facility per header, in dependency order
#include "fiber.h"
#include "state.h"
#include "../cudacommon/source_line.h"
#include "scheduler.h"
#include "collectives.h"
#include "builtins.h"
#include "launch.h"

#define threadIdx (::cudaemu::thread_idx())
#define blockIdx (::cudaemu::block_idx())
// (blockDim and gridDim: types.h)
#define __syncthreads() ::cudaemu::syncthreads(__FILE__, __LINE__)
#define __syncthreads_count(p) ::cudaemu::syncthreads(__FILE__, __LINE__, (p))
#define __syncthreads_and(p) (::cudaemu::syncthreads(__FILE__, __LINE__, (p)) == int(::cudaemu::detail::g_block->live))
#define __syncthreads_or(p) (::cudaemu::syncthreads(__FILE__, __LINE__, (p)) != 0)
#define __syncwarp(...) ::cudaemu::SyncwarpAt{__FILE__, __LINE__}(__VA_ARGS__)

#include "cudaemu_device.h"
#include "cudaemu_api.h"
#include "registry.h"
// CUDA graphs and stream capture, in a program that calls their API (CUDAEMU_GRAPHS: cudacommon/protocol_core.h)
#if CUDAEMU_GRAPHS
#include "graphs.h"
#else
#include "graphs_absent.h"
#endif

#endif  // CUDAEMU_CUDAEMU_H
