// hirace device-side runtime: where a monitored word's shadow lives, the checks
// instrumented accesses call, barrier clocks, and the bounded race log.
// Compiles with nvcc (device code) and, on the cpu backend, as host code.
// The umbrella the instrumented code includes (through host.h): one header per facility, in order.
#ifndef HIRACE_RUNTIME_H
#define HIRACE_RUNTIME_H

#include "config.h"
#include "update.h"

#include "cudacommon/protocol.h"
#include "cudacommon/qualifiers.h"

#include "bench_switches.h"    // benchmarks only: named ablation switches, all off unless passed
#include "records.h"           // ranges, race and out-of-bounds records, log entries, prior-site slots
#include "launch_state.h"      // what a launch's code reads (g_launch), sites that ran, linear ids
#include "clocks.h"            // barrier clocks, the block's shared area, block_entry
#include "locate.h"            // where an address lies: buffer or shared window, shadow, offset
#include "device_log.h"        // the race and out-of-bounds logs (hash tables)
#include "check.h"             // the check (check_words, check) and rd, wr, rmw, atomics, ranges
#include "library_checks.h"    // __host__ __device__ functions, CUB collectives, libcu++ atomics
#include "bench_hooks.h"       // benchmarks only: the stand-ins the switches put in place
#include "quiet.h"             // the quiet forms (bounds only) and own_index, lanes_apart
#include "quiet_version.h"     // a kernel's quiet version (namespace q)

#endif  // HIRACE_RUNTIME_H
