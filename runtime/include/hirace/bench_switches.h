// Benchmarks only (bench/hirace_overhead/variants.py, `--variant NAME=-DHIRACE_BENCH_...`): named
// switches that cut a part of hirace out of a build, or put a stand-in in its place, to measure what
// that part costs. Each is 0 unless the build defines it (`-DHIRACE_BENCH_NO_SHADOW_UPDATE` sets it
// to 1); with one on, verdicts are wrong or a kernel traps: never in a product build. The product
// headers test these names (all off: the whole check); the stand-ins live in bench_hooks.h. Each
// says the number it had as HIRACE_BENCH_CUT=N, which older results (bench/results/) name.
#ifndef HIRACE_BENCH_SWITCHES_H
#define HIRACE_BENCH_SWITCHES_H

#include "cudacommon/qualifiers.h"

#ifdef HIRACE_BENCH_CUT
#error "HIRACE_BENCH_CUT=N is gone: pass the named switch instead (runtime/include/hirace/bench_switches.h)"
#endif

// (was 1) the check returns after its enabled test (check.h check)
#ifndef HIRACE_BENCH_STOP_AFTER_ENABLED
#define HIRACE_BENCH_STOP_AFTER_ENABLED 0
#endif
// (was 2) the check returns after locating the access (check.h check)
#ifndef HIRACE_BENCH_STOP_AFTER_LOCATE
#define HIRACE_BENCH_STOP_AFTER_LOCATE 0
#endif
// (was 3) everything but the shadow update (check.h check_words)
#ifndef HIRACE_BENCH_NO_SHADOW_UPDATE
#define HIRACE_BENCH_NO_SHADOW_UPDATE 0
#endif
// (was 4) own_index taken as true without its test (quiet.h own_index)
#ifndef HIRACE_BENCH_OWN_INDEX_FREE
#define HIRACE_BENCH_OWN_INDEX_FREE 0
#endif
// (was 5) no "off" state copied after a launch (host_launch.h after_launch)
#ifndef HIRACE_BENCH_NO_OFF_STATE
#define HIRACE_BENCH_NO_OFF_STATE 0
#endif
// (was 6) the launch state copied at the first launch only, and no "off" state after a launch (wrong
// verdicts: the floor of a launch's cost; host_launch.h before_launch, after_launch)
#ifndef HIRACE_BENCH_STATE_COPIED_ONCE
#define HIRACE_BENCH_STATE_COPIED_ONCE 0
#endif
// (was 7) a quiet access that would take the whole check traps instead (what the out-of-line call
// costs the quiet paths; quiet.h quiet_slow)
#ifndef HIRACE_BENCH_QUIET_SLOW_TRAPS
#define HIRACE_BENCH_QUIET_SLOW_TRAPS 0
#endif
// (was 8) such an access counts and diverts itself, inline (a call-free slow path)
#ifndef HIRACE_BENCH_QUIET_SLOW_INLINE
#define HIRACE_BENCH_QUIET_SLOW_INLINE 0
#endif
// (was 9) as HIRACE_BENCH_QUIET_SLOW_TRAPS, with a call of the check that never runs at each block's
// entry (what the registers the out-of-line check takes cost, without its calls at the sites)
#ifndef HIRACE_BENCH_QUIET_SLOW_TRAPS_CHECK_KEPT
#define HIRACE_BENCH_QUIET_SLOW_TRAPS_CHECK_KEPT 0
#endif
// (was 10) the quiet paths call a small out-of-line function of two arguments that traps (a compact
// slow path)
#ifndef HIRACE_BENCH_QUIET_SLOW_COMPACT_CALL
#define HIRACE_BENCH_QUIET_SLOW_COMPACT_CALL 0
#endif
// (was 11) quiet reads (rd_bounds, rd_param) give values, not addresses (bench_hooks.h QuietRead)
#ifndef HIRACE_BENCH_QUIET_READ_VALUES
#define HIRACE_BENCH_QUIET_READ_VALUES 0
#endif
// (was 12) the quiet paths call the check from inline assembly (bench_hooks.h hidden_check)
#ifndef HIRACE_BENCH_QUIET_SLOW_HIDDEN_CALL
#define HIRACE_BENCH_QUIET_SLOW_HIDDEN_CALL 0
#endif
// (was 20) block_entry leaves the block's area as it finds it (what clearing it costs; clocks.h)
#ifndef HIRACE_BENCH_NO_AREA_CLEAR
#define HIRACE_BENCH_NO_AREA_CLEAR 0
#endif
// (was 34) a quiet version's failed bounds test traps, and its journal is never logged (what the
// journal costs; quiet_version.h q::outside, Journal)
#ifndef HIRACE_BENCH_QUIET_VERSION_FLOOR
#define HIRACE_BENCH_QUIET_VERSION_FLOOR 0
#endif
// the cpu backend's check without its memo of the thread's turn (turn_memo.h): every access checked
// whole; the one switch that keeps verdicts and reports as they are (tests/test_hirace_turn_memo.py)
#ifndef HIRACE_BENCH_NO_TURN_MEMO
#define HIRACE_BENCH_NO_TURN_MEMO 0
#endif

// The stand-ins for the quiet forms' slow path replace one another: one at a time.
#if HIRACE_BENCH_QUIET_SLOW_TRAPS + HIRACE_BENCH_QUIET_SLOW_INLINE + HIRACE_BENCH_QUIET_SLOW_TRAPS_CHECK_KEPT + \
        HIRACE_BENCH_QUIET_SLOW_COMPACT_CALL + HIRACE_BENCH_QUIET_SLOW_HIDDEN_CALL > 1
#error "hirace: at most one HIRACE_BENCH_QUIET_SLOW_* switch at a time"
#endif

// What the product headers ask (device code only): does a stand-in replace quiet_slow (quiet.h), do
// quiet reads give values (quiet.h rd_bounds, rd_param), does block_entry call the check that never
// runs (clocks.h)?
#if defined(__CUDA_ARCH__) && (HIRACE_BENCH_QUIET_SLOW_TRAPS || HIRACE_BENCH_QUIET_SLOW_INLINE ||              \
                               HIRACE_BENCH_QUIET_SLOW_TRAPS_CHECK_KEPT || HIRACE_BENCH_QUIET_SLOW_COMPACT_CALL || \
                               HIRACE_BENCH_QUIET_SLOW_HIDDEN_CALL)
#define HIRACE_BENCH_QUIET_SLOW_HOOK 1
#else
#define HIRACE_BENCH_QUIET_SLOW_HOOK 0
#endif
#if defined(__CUDA_ARCH__) && HIRACE_BENCH_QUIET_READ_VALUES
#define HIRACE_BENCH_QUIET_READ_HOOK 1
#else
#define HIRACE_BENCH_QUIET_READ_HOOK 0
#endif
#if defined(__CUDA_ARCH__) && (HIRACE_BENCH_QUIET_SLOW_TRAPS_CHECK_KEPT || HIRACE_BENCH_QUIET_SLOW_HIDDEN_CALL)
#define HIRACE_BENCH_BLOCK_ENTRY_HOOK 1
#else
#define HIRACE_BENCH_BLOCK_ENTRY_HOOK 0
#endif

#if HIRACE_BENCH_BLOCK_ENTRY_HOOK
namespace hirace {
namespace bench {
CCTK_D inline void never_called_check();   // (bench_hooks.h)
}  // namespace bench
}  // namespace hirace
#endif

#endif  // HIRACE_BENCH_SWITCHES_H
