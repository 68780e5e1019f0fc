// hirace host-side runtime: tracks the buffers kernels may touch, prepares each
// launch (shadow, clocks, race log), collects races after it, and writes them to
// $HIRACE_LOG as JSON lines when the program exits. Same code on both backends.
// The umbrella the instrumented code includes: one header per facility, in order.
#ifndef HIRACE_HOST_H
#define HIRACE_HOST_H

#include "host_state.h"      // the host's state: buffers, launches, records, scratch (and runtime.h, units.h)
#include "host_fork.h"       // fork handling: pending launches read back first, a child's own log
#include "host_init.h"       // options from the environment, at-exit log, check_cuda
#include "host_alloc.h"      // allocation tracking, redzones, hirace's own memory, the allocation macros
#include "host_readback.h"   // reading back the pending launches' logs, device reset and exit
#include "host_quiet.h"      // quiet parameters and quiet versions, per launch
#include "host_kernel_pointers.h"   // launches through a kernel pointer: each kernel's quiet parameters and version
#include "host_launch.h"     // launch bracketing: before_launch, after_launch
#include "host_log.h"        // the log written at exit
#include "host_unit.h"       // each translation unit's registration
#include "host_streams.h"    // cpu backend, HIRACE_STREAMS: races between operations the host does not order

#endif  // HIRACE_HOST_H
