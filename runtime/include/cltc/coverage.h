// cltc coverage runtime: the flags and counters instrumented kernels set, and the
// host code that collects them into $CLTC_COV_LOG when the program ends.
// Same code for nvcc and for the cpu backend (cudaemu).
//
// Flag ids are planned by cltestcheck/coverage/planner.py (branch arms, loop
// cases); barrier b owns barrier flags 2b ("reached") and 2b+1 ("every thread
// of some block arrived"). A flag is one byte, set once (read before writing,
// so a hot branch costs a cached load). Built with CLTC_COV_COUNTS=1, an item
// counts every thread that passes it instead (one atomic add: hit counts of
// executions for lcov/Cobertura, at a price the flags do not pay).
//
// A program built whole (cltc's own builds) numbers its items once for all its files. A program
// built unit by unit through the compiler launcher (cltc-cc: CLTC_COV_UNITS=1) numbers each unit's
// items from 0: the unit's flags are its own (the device arrays of coverage_state.h are per
// translation unit, and so, in such a build, is every function that touches them), its item table is
// text of its own object, and it registers both when the program starts (register_this_unit, called
// from the end of its file); the host gives it the first of its ids among the program's and writes,
// at exit, every unit's table with the flags, to CLTC_COV_LOG or to a file of the process's own in
// CLTC_COV_LOG_DIR.
//
// The umbrella the instrumented code includes: one header per facility, in order. The planner
// builds each program with -D CLTC_COV_FLAGS, CLTC_COV_BARRIERS, CLTC_COV_COUNTS (and CLTC_COV_UNITS
// for cltc-cc); CLTC_COV_BIT_SLOTS and CLTC_COV_LATE_BARRIERS are tunings; the defaults of all six
// are the generated cudacommon/protocol.h's. The log's options: ::cctk::env::kCltcCovLog and
// ::cctk::env::kCltcCovLogDir (coverage_host_log.h).
#ifndef CLTC_COVERAGE_H
#define CLTC_COVERAGE_H

#include "coverage_state.h"         // sizes, linkage, records, the unit's device arrays, g_bits' layout
#include "coverage_record.h"        // set_once, count_in, hit, the direct forms br, sw, Loop; classify
#include "coverage_barriers.h"      // barrier arrivals per block, sync_counted / passed, BlockScope
#include "coverage_seen.h"          // a kernel's items in registers: Seen, br_in, sw_in, LoopIn, sync_counted_in
#include "coverage_host_state.h"    // the host: totals, units and their registration, pull
#include "coverage_host_log.h"      // the log written at exit, init
#include "coverage_host_launch.h"   // before_launch, before_reset
#include "coverage_unit.h"          // this unit's read-back and registration

#endif  // CLTC_COVERAGE_H
