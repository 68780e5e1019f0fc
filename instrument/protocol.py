"""What the Python tools and the C++ runtimes agree on, declared once.

Every environment variable a runtime header reads (with the runtime's default where it has one),
every exit status a runtime ends a program with, the build macros the planners pass (`-D`, with
their defaults), the constants both sides size things by, cltc's schedule specs (and their one
parser), the mutation operator codes and the loop-coverage cases are declared here; the C++ side,
runtime/include/cudacommon/protocol.h, is generated from this module
(`python -m instrument.genprotocol`, checked for staleness by the test suite), and the Python
side imports the names from here. Nothing of this is spelled by hand on both sides.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum, StrEnum


class Env(StrEnum):
    """The environment variables the runtimes read (a StrEnum: usable as an env dict key)."""
    HIRACE_LOG = "HIRACE_LOG"
    HIRACE_LOG_DIR = "HIRACE_LOG_DIR"
    HIRACE_EXITCODE = "HIRACE_EXITCODE"
    HIRACE_KERNELS = "HIRACE_KERNELS"
    HIRACE_KERNELS_EXCLUDE = "HIRACE_KERNELS_EXCLUDE"
    HIRACE_MAX_REPORTS = "HIRACE_MAX_REPORTS"
    HIRACE_PRIOR_SITES = "HIRACE_PRIOR_SITES"
    HIRACE_SITES_BUDGET = "HIRACE_SITES_BUDGET"
    HIRACE_BLOCKS = "HIRACE_BLOCKS"
    HIRACE_THREADS = "HIRACE_THREADS"
    HIRACE_BOUNDS = "HIRACE_BOUNDS"
    HIRACE_QUIET_VERSIONS = "HIRACE_QUIET_VERSIONS"
    CLTC_COV_LOG = "CLTC_COV_LOG"
    CLTC_COV_LOG_DIR = "CLTC_COV_LOG_DIR"
    CLTC_MUTANT = "CLTC_MUTANT"
    CLTC_MUT_REACH = "CLTC_MUT_REACH"
    CLTC_MUT_LOG_DIR = "CLTC_MUT_LOG_DIR"
    CLTC_SCHEDULE = "CLTC_SCHEDULE"
    CLTC_SCHED_LOG = "CLTC_SCHED_LOG"
    CLTC_SCHED_LOG_DIR = "CLTC_SCHED_LOG_DIR"
    CLTC_SEARCH_LOG = "CLTC_SEARCH_LOG"
    CUDAEMU_SEED = "CUDAEMU_SEED"
    CUDAEMU_SWITCH = "CUDAEMU_SWITCH"
    CUDAEMU_STACK_KB = "CUDAEMU_STACK_KB"
    CUDAEMU_BLOCK_ORDER = "CUDAEMU_BLOCK_ORDER"
    CUDAEMU_EXITED_ARRIVE = "CUDAEMU_EXITED_ARRIVE"
    CUDAEMU_DEVICE_MB = "CUDAEMU_DEVICE_MB"


class Exit(IntEnum):
    """Exit statuses a runtime ends the program with (chosen to be unlike a program's own)."""
    BARRIER_DIVERGENCE = 86   # cpu backend: threads wait at different barriers
    DEADLOCK = 87             # cpu backend: no thread can run
    EMULATION_FAULT = 88      # cpu backend: a construct it cannot run, or an internal error
    FINDINGS = 66             # hirace-cc builds: the program reported races or memory errors itself
    RUNTIME_FAILURE = 99      # a tool runtime could not set itself up or write its log


EXIT_MEANING = {Exit.BARRIER_DIVERGENCE: "barrier divergence", Exit.DEADLOCK: "deadlock",
                Exit.EMULATION_FAULT: "emulation fault", Exit.FINDINGS: "hirace findings reported by the program",
                Exit.RUNTIME_FAILURE: "tool runtime failure"}


@dataclass(frozen=True)
class OptionDoc:
    runtime: str    # the header that reads it
    value: str      # what its value looks like
    help: str
    # the runtime's value where the variable is unset, stated once: protocol.h `env_default`, and the
    # tools' own defaults (hirace.toml's) read it here; None: nothing to state (an unset path, a filter)
    default: bool | int | None = None


def option_default(env: Env) -> bool | int:
    """The runtime's value of an option that is not set (its OptionDoc's default)."""
    d = OPTIONS[env].default
    if d is None:
        raise KeyError(f"{env} has no default")
    return d


OPTIONS: dict[Env, OptionDoc] = {
    Env.HIRACE_LOG: OptionDoc("hirace/host_init.h", "path", "where the race log is written at exit"),
    Env.HIRACE_LOG_DIR: OptionDoc("hirace/host_init.h", "directory", "where each process writes a log of its own at "
                                  "exit (hirace-PID-N.jsonl, never over another file), when HIRACE_LOG is unset; "
                                  "`hirace run -- COMMAND` sets it"),
    Env.HIRACE_EXITCODE: OptionDoc("hirace/units.h", "status", "the exit status of a program built by hirace-cc that "
                                   "found races or out-of-bounds accesses and reported them itself (0: keep the "
                                   "program's own)", default=int(Exit.FINDINGS)),
    Env.HIRACE_KERNELS: OptionDoc("hirace/host_init.h", "name,name", "check only launches of these kernels"),
    Env.HIRACE_KERNELS_EXCLUDE: OptionDoc("hirace/host_init.h", "name,name", "never check launches of these kernels "
                                          "(it wins over HIRACE_KERNELS)"),
    Env.HIRACE_MAX_REPORTS: OptionDoc("hirace/host_init.h", "count", "race records kept per launch", default=1024),
    Env.HIRACE_PRIOR_SITES: OptionDoc("hirace/host_init.h", "0|1", "record each word's last accesses, so races name "
                                      "both (0 saves 16 bytes per shadow word)", default=True),
    Env.HIRACE_SITES_BUDGET: OptionDoc("hirace/host_init.h", "N", "keep a buffer's prior-site slots only while "
                                       "hirace's device memory (shadows, slots, logs, redzones) stays within N times "
                                       "the program's, or the slots within 1 MiB (SITES_FLOOR); a buffer a race was "
                                       "found in gets them anyway (0: no limit)", default=2),
    Env.HIRACE_BLOCKS: OptionDoc("hirace/host_init.h", "lo:hi", "check only blocks lo..hi (linear ids)"),
    Env.HIRACE_THREADS: OptionDoc("hirace/host_init.h", "lo:hi", "check only threads lo..hi of each block"),
    Env.HIRACE_BOUNDS: OptionDoc("hirace/host_init.h", "0|1", "redzones and out-of-bounds checks (0 only to measure "
                                 "their cost)", default=True),
    Env.HIRACE_QUIET_VERSIONS: OptionDoc("hirace/host_init.h", "0|1", "launch a kernel's quiet version where its "
                                         "launch conditions hold (0: every launch runs the kernel, to measure what "
                                         "the versions save, or to name every out-of-bounds site of a thread that meets more "
                                         "than a version's thread notes)", default=True),
    Env.CLTC_COV_LOG: OptionDoc("cltc/coverage_host_log.h", "path", "where the coverage flags are written at exit"),
    Env.CLTC_COV_LOG_DIR: OptionDoc("cltc/coverage_host_log.h", "directory", "where each process of a program built by cltc-cc "
                                    "writes a coverage log of its own at exit (cltc-cov-PID-N.jsonl, never over "
                                    "another file), when CLTC_COV_LOG is unset; `cltc coverage -- COMMAND` sets it"),
    Env.CLTC_MUTANT: OptionDoc("cltc/mutate.h", "id", "the active mutant (0: none); in a program built by cltc-cc, "
                               "its stable id FILE:LINE:COLUMN:OPERATOR:REPLACEMENT (FILE may be the tail of "
                               "its path)"),
    Env.CLTC_MUT_REACH: OptionDoc("cltc/mutate.h", "path", "where the reached mutation sites are written"),
    Env.CLTC_MUT_LOG_DIR: OptionDoc("cltc/mutate.h", "directory", "where each process of a program built by "
                                    "cltc-cc for mutation writes its units' mutants and the sites it reached at "
                                    "exit (cltc-mut-PID-N.jsonl), when CLTC_MUT_REACH is unset; `cltc mutate -- "
                                    "COMMAND` sets it"),
    Env.CLTC_SCHEDULE: OptionDoc("cltc/schedule.h", "spec", "the block schedule to impose (amplify)"),
    Env.CLTC_SCHED_LOG: OptionDoc("cltc/schedule.h", "path", "where the schedule actually run is written"),
    Env.CLTC_SCHED_LOG_DIR: OptionDoc("cltc/schedule.h", "directory", "where each process of a program built by "
                                      "cltc-cc for amplification writes its launches at exit "
                                      "(cltc-sched-PID-N.jsonl), when CLTC_SCHED_LOG is unset; `cltc amplify -- "
                                      "COMMAND` sets it"),
    Env.CLTC_SEARCH_LOG: OptionDoc("cltc/search.h", "path", "where a program built for `cltc search` writes, at "
                                   "exit, how close each instrumented comparison came to each outcome (cpu "
                                   "backend)"),
    Env.CUDAEMU_SEED: OptionDoc("cudaemu/state.h", "integer", "seed of the cpu backend's thread schedule"),
    Env.CUDAEMU_SWITCH: OptionDoc("cudaemu/state.h", "probability", "chance to switch threads at an access"),
    Env.CUDAEMU_STACK_KB: OptionDoc("cudaemu/state.h", "KiB", "stack of each emulated thread"),
    Env.CUDAEMU_BLOCK_ORDER: OptionDoc("cudaemu/state.h", "asc|desc|random|ids",
                                       "the order in which blocks start"),
    Env.CUDAEMU_EXITED_ARRIVE: OptionDoc("cudaemu/state.h", "0|1",
                                         "exited threads count as arrived at __syncthreads"),
    Env.CUDAEMU_DEVICE_MB: OptionDoc("cudaemu/cudaemu_api.h", "MiB",
                                     "the emulated device's memory: device allocations past it fail (default: no cap)"),
}


class LoopCase(IntEnum):
    """The coverage flags of one loop, relative to its base flag."""
    ZERO = 0       # entered, no iteration
    ONE = 1        # exactly one iteration
    MANY = 2       # more than one
    BOUNDARY = 3   # ended by its condition turning false


# A kernel's own coverage items note bits of a register mask (cltc/coverage.h `Seen`): at most
# SEEN_BITS of them; a Seen id with SEEN_BARRIER_FLAG set names a barrier flag, not an item flag.
SEEN_BITS = 64
SEEN_BARRIER_FLAG = 1 << 31

# hirace's prior-site slots keep a site id in its low SITE_ID_BITS bits (the rest: the access's
# kind and its thread's barrier clocks, hirace/records.h SiteSlots): a program has at most
# 2**SITE_ID_BITS instrumented accesses.
SITE_ID_BITS = 20

# The prior-site slots kept whatever the budget (HIRACE_SITES_BUDGET, hirace/host_site_budget.h): a program
# whose slots take at most this many bytes in all keeps them for every buffer it writes.
SITES_FLOOR = 1 << 20

class Space(IntEnum):
    """The memory space a hirace log record names (its `space` field; hirace/records.h Space)."""
    GLOBAL = 0
    SHARED = 1


# A kernel's quiet candidates: parameters whose accesses may be quiet in a launch, given the buffers
# its arguments point into (read-only, own and atomic parameters: instrument/readonly_params.py;
# the launch state's quiet_lo/quiet_hi, hirace/records.h; chosen per launch by hirace/host_quiet.h):
# at most QUIET_PARAMS of them per kernel (a bit each in LaunchState::quiet_params).
QUIET_PARAMS = 8

# The quiet forms of a site (hirace/quiet.h; the planner's choice, hirace/planner.py): a site in one
# of these forms tests its bounds inline and takes the whole check only where the test fails. Each
# has a namesake in the quiet version of a kernel (hirace/quiet_version.h, namespace q), which the
# version's copy calls instead (hirace/quiet_version.py); the runtime checks both at compile time.
QUIET_FORMS = ("rd_bounds", "rd_private", "wr_private", "rmw_private", "rd_apart", "wr_apart", "rmw_apart",
               "rd_param", "rd_paired", "rd_own", "wr_own", "rmw_own", "atomic_block_bounds", "atomic_device_bounds",
               "atomic_param", "rd_ctx", "wr_ctx", "rmw_ctx", "atomic_block_ctx", "atomic_device_ctx")
# The forms only a quiet version calls (namespace q): `inside`, a site of a declared array whose index a
# proof shows inside the array wherever the version runs (hirace/proofs/bounds.py): the access itself.
VERSION_FORMS = ("inside",)
# The hooks without a site argument that a quiet version keeps as no-ops (namespace q has each).
QUIET_HOOKS = ("block_entry", "after_block_barrier", "after_warp_barrier", "after_group_barrier",
               "after_block_barrier_value", "own_index", "lanes_apart", "forms_apart",
               "fold_index")


# ---------------------------------------------------------------- cltc amplify's block schedules
# A schedule spec (CLTC_SCHEDULE, and what `cltc amplify` lists: schedules.py) names one block order;
# the runtime's gate (cltc/schedule.h) and the Python host for kernels launched from Python
# (cltestcheck/gpu_host.py) read it with the parser generated from / written over these forms.

class ScheduleMode(IntEnum):
    """What the gate imposes (cltc/schedule.h LaunchGate::mode)."""
    NONE = 0     # nothing: blocks as the hardware runs them
    FREE = 1     # blocks as the hardware dispatches them, renamed by dispatch order
    FIRST = 2    # one block first, the rest after it
    SERIAL = 3   # one block at a time, in an order (SerialOrder)


class SerialOrder(IntEnum):
    """The order of a serial schedule (the gate's `first` field in SERIAL mode)."""
    ASC = 0
    DESC = 1
    RANDOM = 2   # a permutation drawn from the spec's seed and the launch's number


@dataclass(frozen=True)
class ScheduleForm:
    name: str            # the spec's word, or its head before ':' (`first:W`, `random:SEED`)
    mode: ScheduleMode
    order: int           # `first` of a form without an argument (SERIAL: its SerialOrder)
    arg: str             # "" | "first" (the block that runs first) | "seed" (the permutation's)
    help: str

    @property
    def spelling(self) -> str:
        """How the spec is written: `asc`, `first:W`, `random:SEED`."""
        return f"{self.name}:{'W' if self.arg == 'first' else 'SEED'}" if self.arg else self.name


SCHEDULE_FORMS = (
    ScheduleForm("none", ScheduleMode.NONE, 0, "", "no schedule imposed (also any spec not below)"),
    ScheduleForm("free", ScheduleMode.FREE, 0, "", "blocks as the hardware dispatches them, renamed by dispatch order"),
    ScheduleForm("asc", ScheduleMode.SERIAL, SerialOrder.ASC, "", "blocks one at a time, ascending"),
    ScheduleForm("desc", ScheduleMode.SERIAL, SerialOrder.DESC, "", "blocks one at a time, descending"),
    ScheduleForm("first", ScheduleMode.FIRST, 0, "first", "block W runs first, then the others"),
    ScheduleForm("random", ScheduleMode.SERIAL, SerialOrder.RANDOM, "seed",
                 "blocks one at a time, in a permutation drawn from SEED"),
)


@dataclass(frozen=True)
class Schedule:
    """A parsed schedule spec: the gate's mode, first (block, or serial order) and seed."""
    mode: ScheduleMode = ScheduleMode.NONE
    first: int = 0
    seed: int = 0


def parse_schedule(spec: str | None, strict: bool = False) -> Schedule | None:
    """A schedule spec as the runtime reads it (protocol.h `schedule::parse`): an unknown spec, or none,
    is NONE, and an argument's leading digits are its value (none: 0). With `strict`, None for a
    spec that is not exactly one form (an argument must be digits)."""
    v = spec or "none"
    head, colon, rest = v.partition(":")
    for f in SCHEDULE_FORMS:
        if f.arg and colon and head == f.name:
            digits = re.match(r"\d*", rest).group()
            if strict and (not digits or digits != rest):
                return None
            n = int(digits or 0)
            return Schedule(f.mode, n if f.arg == "first" else int(f.order), n if f.arg == "seed" else 0)
        if not f.arg and v == f.name:
            return Schedule(f.mode, int(f.order), 0)
    return None if strict else Schedule()


def schedule_spec(form: str, arg: int | None = None) -> str:
    """The spec of a form: schedule_spec("first", 3) == "first:3"."""
    f = next(f for f in SCHEDULE_FORMS if f.name == form)
    if bool(f.arg) != (arg is not None):
        raise ValueError(f"schedule form {form!r} takes {'an argument' if f.arg else 'no argument'}")
    return f"{form}:{arg}" if f.arg else form


# ---------------------------------------------------------------- cltc coverage's bit rows
# The flags kernels note in registers go to rows of 64-bit words (cltc/coverage.h g_bits), one row per
# SM slot, each row whole 128-byte lines: BIT_ROW_LINE_BITS flags per line of BIT_ROW_LINE_WORDS words.
BIT_ROW_LINE_BITS = 1024
BIT_ROW_LINE_WORDS = 16


def bit_row_words(flag_bytes: int, barrier_flag_bytes: int) -> int:
    """The words of one row of g_bits, from the sizes of g_flags and g_barrier_flags (coverage.h kBitRow)."""
    return (flag_bytes + barrier_flag_bytes + BIT_ROW_LINE_BITS - 1) // BIT_ROW_LINE_BITS * BIT_ROW_LINE_WORDS


# ---------------------------------------------------------------- build macros
# What a runtime is built with: the planners pass these as -D (their defines(), through
# instrument/compile/pipeline.py planned_defines; hirace-cc and cltc-cc the same per unit), and protocol.h
# gives each its default (`#ifndef NAME / #define NAME default`) for a build that does not.

class Macro(StrEnum):
    HIRACE_GRANULARITY_SHIFT = "HIRACE_GRANULARITY_SHIFT"
    HIRACE_BUFFER_SHIFT = "HIRACE_BUFFER_SHIFT"
    HIRACE_LAZY_STATE = "HIRACE_LAZY_STATE"
    HIRACE_SITES_RAN = "HIRACE_SITES_RAN"
    HIRACE_SITE_COUNT = "HIRACE_SITE_COUNT"
    HIRACE_UNITS = "HIRACE_UNITS"
    HIRACE_BRACKETED_ONLY = "HIRACE_BRACKETED_ONLY"
    HIRACE_LANE_GROUPS = "HIRACE_LANE_GROUPS"
    HIRACE_WHOLE_WARPS = "HIRACE_WHOLE_WARPS"
    HIRACE_GRID_SYNCS = "HIRACE_GRID_SYNCS"
    HIRACE_MEMORY_SYNC = "HIRACE_MEMORY_SYNC"
    HIRACE_STREAMS = "HIRACE_STREAMS"
    HIRACE_HOST_ACCESS = "HIRACE_HOST_ACCESS"
    HIRACE_PENDING_LAUNCHES = "HIRACE_PENDING_LAUNCHES"
    CLTC_COV_FLAGS = "CLTC_COV_FLAGS"
    CLTC_COV_BARRIERS = "CLTC_COV_BARRIERS"
    CLTC_COV_COUNTS = "CLTC_COV_COUNTS"
    CLTC_COV_UNITS = "CLTC_COV_UNITS"
    CLTC_COV_BIT_SLOTS = "CLTC_COV_BIT_SLOTS"
    CLTC_COV_LATE_BARRIERS = "CLTC_COV_LATE_BARRIERS"
    CLTC_MUT_SITES = "CLTC_MUT_SITES"
    CLTC_MUT_UNITS = "CLTC_MUT_UNITS"
    CUDAEMU_GRAPHS = "CUDAEMU_GRAPHS"


@dataclass(frozen=True)
class MacroDoc:
    runtime: str    # the header that reads it
    default: int
    set_by: str     # who passes it: a planner's defines(), or nobody (a tuning a build may override)
    help: str


MACROS: dict[Macro, MacroDoc] = {
    Macro.HIRACE_GRANULARITY_SHIFT: MacroDoc("hirace/host_alloc.h", 2, "hirace/planner.py",
                                             "log2 of the bytes one shadow word covers: shared memory's, and the "
                                             "finest a buffer's takes"),
    Macro.HIRACE_BUFFER_SHIFT: MacroDoc("hirace/host_alloc.h", -1, "hirace/planner.py",
                                        "log2 of the bytes a buffer's shadow word covers when it is allocated, made "
                                        "finer before a launch that may touch it with narrower accesses "
                                        "(hirace/host_granularity.h); -1: HIRACE_GRANULARITY_SHIFT's, for every buffer"),
    Macro.HIRACE_LAZY_STATE: MacroDoc("hirace/host_buffer_state.h", 0, "hirace/planner.py",
                                      "1: a buffer gets its shadow and prior-site slots before the first launch that "
                                      "may write it, not when it is allocated (a launch that says what it writes "
                                      "leaves the other buffers unchecked: no access can race there); 0: every "
                                      "buffer at its allocation"),
    Macro.HIRACE_SITES_RAN: MacroDoc("hirace/launch_state.h", 0, "hirace/planner.py",
                                     "1: each site notes that it ran (`ran`; always on the cpu backend)"),
    Macro.HIRACE_SITE_COUNT: MacroDoc("hirace/host_launch.h", 0, "hirace/planner.py",
                                      "the program's sites (a program built unit by unit counts its units' "
                                      "instead: units.h)"),
    Macro.HIRACE_UNITS: MacroDoc("hirace/host_unit.h", 0, "hirace/planner.py",
                                 "1: a unit built by itself through hirace-cc, with its own site table (units.h)"),
    Macro.HIRACE_GRID_SYNCS: MacroDoc("hirace/check.h", 1, "hirace/planner.py",
                                      "0: no grid.sync() in the units: a check leaves the blocks' numbering past "
                                      "grid syncs out, and so uses fewer registers"),
    Macro.HIRACE_LANE_GROUPS: MacroDoc("hirace/update.h", 1, "hirace/planner.py",
                                       "0: no sync of part of a warp in the units (no lane groups): a check "
                                       "leaves their inputs out, and so uses fewer registers"),
    Macro.HIRACE_WHOLE_WARPS: MacroDoc("hirace/update.h", 0, "hirace/planner.py",
                                       "1: no code of the device program syncs part of a warp, and the planner saw "
                                       "all of it (not a unit built by itself): a thread's lane groups are whole "
                                       "warps, a constant the check folds away"),
    Macro.HIRACE_MEMORY_SYNC: MacroDoc("hirace/update.h", 0, "hirace/planner.py",
                                       "1: the check follows synchronisation through memory (fences, flags, "
                                       "locks: docs/memory-model.md, hirace/memory_sync.h, memory_sync_hooks.h); "
                                       "set where a unit has a fence or an ordered libcu++ atomic (the model "
                                       "checker's harness too: hirace/modelcheck.py)"),
    Macro.HIRACE_STREAMS: MacroDoc("hirace/host_streams.h", 0, "hirace/planner.py",
                                   "1: the program uses streams, events or asynchronous copies: the host-side order "
                                   "of its operations is followed and each launch's footprint collected "
                                   "(hirace/host_streams.h, stream_footprint.h; on the gpu backend in device "
                                   "memory, read back after each launch)"),
    Macro.HIRACE_BRACKETED_ONLY: MacroDoc("hirace/host_launch.h", 0, "hirace/planner.py",
                                          "1: the planner found no way for the program's instrumented code to run "
                                          "in a launch hirace does not bracket (hirace/planner.py "
                                          "_note_unbracketed), so no \"off\" state follows each launch"),
    Macro.HIRACE_HOST_ACCESS: MacroDoc("hirace/host_access.h", 1, "hirace/planner.py",
                                       "with HIRACE_STREAMS: the host's accesses of managed and pinned memory are "
                                       "watched (x86-64 Linux); 0: not (bench/host_access measures the cost), set "
                                       "where no unit of a whole program allocates such memory or declares a "
                                       "__managed__ variable: nothing to watch"),
    Macro.HIRACE_PENDING_LAUNCHES: MacroDoc("hirace/records.h", 64, "",
                                            "launches that log into one race log before the host reads it back"),
    Macro.CLTC_COV_FLAGS: MacroDoc("cltc/coverage_state.h", 1, "cltestcheck/coverage/planner.py", "coverage items"),
    Macro.CLTC_COV_BARRIERS: MacroDoc("cltc/coverage_state.h", 0, "cltestcheck/coverage/planner.py", "barriers"),
    Macro.CLTC_COV_COUNTS: MacroDoc("cltc/coverage_state.h", 0, "cltestcheck/coverage/planner.py",
                                    "1: count the threads that pass each item (count_executions)"),
    Macro.CLTC_COV_UNITS: MacroDoc("cltc/coverage_state.h", 0, "cltestcheck/coverage/planner.py",
                                   "1: a unit built by itself through cltc-cc, with its own item table"),
    Macro.CLTC_COV_BIT_SLOTS: MacroDoc("cltc/coverage_state.h", 256, "",
                                       "rows of g_bits (one per SM the kernels' leaving warps write)"),
    Macro.CLTC_COV_LATE_BARRIERS: MacroDoc("cltc/coverage_seen.h", 8, "",
                                           "barriers of a kernel's Seen judged when threads leave"),
    Macro.CLTC_MUT_SITES: MacroDoc("cltc/mutate.h", 1, "cltestcheck/mutate/planner.py", "mutation sites"),
    Macro.CLTC_MUT_UNITS: MacroDoc("cltc/mutate.h", 0, "cltestcheck/mutate/planner.py",
                                   "1: a unit built by itself through cltc-cc, with its own mutant table"),
    Macro.CUDAEMU_GRAPHS: MacroDoc("cudaemu/cudaemu.h", 1, "instrument/compile/cpu_parts.py",
                                   "0: no unit of the program calls the CUDA graph or stream capture API: the cpu "
                                   "backend's units leave cudaemu/graphs.h (and hirace's host_graphs.h) out; every "
                                   "unit of one program must be built with the same value"),
}


def define(macro: Macro, value: int | bool) -> str:
    """A planner's -D for the runtime: `NAME=VALUE` (a bool as 0 or 1)."""
    return f"{macro.value}={int(value)}"


# mutation operator codes: the operator as written -> (code, the runtime's enumerator)
MUTATION_OPS: dict[str, tuple[int, str]] = {
    "+": (0, "ADD"), "-": (1, "SUB"), "*": (2, "MUL"), "/": (3, "DIV"), "%": (4, "MOD"),
    "&": (5, "AND"), "|": (6, "OR"), "^": (7, "XOR"), "<<": (8, "SHL"), ">>": (9, "SHR"),
    "<": (10, "LT"), "<=": (11, "LE"), ">": (12, "GT"), ">=": (13, "GE"), "==": (14, "EQ"), "!=": (15, "NE"),
    "=": (16, "SET"), "++": (32, "INC"), "--": (33, "DEC"),
}


def op_code(op: str) -> int:
    return MUTATION_OPS[op][0]


# ---------------------------------------------------------------- runtime logs
# A runtime writes its log as JSON lines, one record a line, each tagged {"record": TAG, ...}; the
# writers (C++) and the typed readers (instrument/logs.py) are generated from / built on these.

@dataclass(frozen=True)
class LogField:
    name: str
    kind: str   # uint | int | size | u64 | i64 | str | dim3


@dataclass(frozen=True)
class LogRecord:
    tag: str
    fields: tuple[LogField, ...]
    help: str


def _record(tag: str, help: str, *fields: str) -> LogRecord:
    return LogRecord(tag, tuple(LogField(*f.split(":")) for f in fields), help)


HIRACE_LOG = (
    _record("buffer", "a tracked allocation, and where the program made it (line 0: unknown); granularity: the "
            "bytes one word of its shadow covered last (hirace/host_granularity.h); checked 0: no launch that may "
            "write it ran, so it never had a shadow (hirace/host_buffer_state.h); budgeted 1: it went without prior-site slots "
            "for some of its launches, for hirace's memory budget (hirace/host_site_budget.h)", "id:size",
            "name:str", "size:size", "file:str", "line:uint", "granularity:uint", "checked:uint", "budgeted:uint"),
    _record("launch", "a checked launch; quiet 1: it ran its kernel's quiet version (hirace/quiet_version.py); "
            "failed 1: the launch itself failed (a bad configuration): its kernel never ran; quiet_params: bit i "
            "set where the kernel's i-th quiet parameter candidate was quiet in this launch, only its bounds checked "
            "(hirace/proofs/readonly_params.py; `hirace explain` names the candidates)",
            "id:size", "kernel:str", "grid:dim3", "block:dim3", "dropped:uint", "wrapped:uint", "memory_dropped:uint",
            "quiet:uint", "failed:uint", "quiet_params:uint"),
    _record("race", "one race record of a launch; budgeted 1: its earlier site is unknown because its buffer "
            "kept no prior-site slots in that launch, for hirace's memory budget (hirace/host_site_budget.h)",
            "launch:uint", "site:uint", "prior_site:int", "tid:uint", "bid:uint", "prior_tid:uint", "prior_bid:uint",
            "prior_state:uint", "access:uint", "space:uint", "buffer:uint", "offset:u64", "count:uint",
            "budgeted:uint"),
    _record("memory_error", "an out-of-bounds access site of a launch (the first access, and how many); "
            "buffer -1: outside every buffer, or a declared array (the site names it)", "launch:uint",
            "site:uint", "tid:uint", "bid:uint", "access:uint", "space:uint", "buffer:int", "offset:i64",
            "limit:u64", "size:uint", "count:uint"),
    _record("stream_race", "two operations the host does not order (kernel launches, copies, sets; "
            "hirace/host_streams.h) that touch the same bytes, one writing: each one's operation (kernel or the "
            "API call), its kernel's name, where it was issued, its stream and how it touched the bytes (read, "
            "write, atomic); the bytes [offset, offset + size) of buffer `buffer` (-1: memory hirace does not "
            "track, offset then the address); count: pairs of these two places", "first_op:str",
            "first_kernel:str", "first_file:str", "first_line:uint", "first_stream:str", "first_access:str",
            "second_op:str", "second_kernel:str", "second_file:str", "second_line:uint", "second_stream:str",
            "second_access:str", "buffer:int", "offset:u64", "size:u64", "count:uint"),
    _record("site", "an instrumented access of a unit built by hirace-cc (instrument/compile/compile_line.py), by the id "
            "its check passes (the unit's first id, given when it registers, plus its own)", "id:uint", "file:str",
            "line:uint", "column:uint", "kind:str", "text:str", "function:str", "variable:str", "space:str",
            "bound:str"),
    _record("sites", "how many sites the program has, and the ids of those whose check ran (ranges: 0-5,7)",
            "total:uint", "ran:str"),
    _record("process", "the process that wrote the log (logs of hirace-cc builds), and the backend it ran on",
            "pid:uint", "command:str", "backend:str"),
    _record("end", "the last record: the log is complete; sites_evicted 1: device memory ran short and the "
            "buffers' prior-site slots were given up", "granularity:uint", "user_bytes:size", "tool_bytes:size",
            "sites_evicted:uint"),
)

COVERAGE_LOG = (   # cltc coverage (CLTC_COV_LOG)
    _record("flag", "a coverage flag the run set", "id:uint"),
    _record("count", "how many times threads passed a coverage item (built with CLTC_COV_COUNTS=1)",
            "id:uint", "n:u64"),
    _record("barrier_flag", "a barrier flag the run set (2 per barrier: reached, reached by all)", "id:uint"),
    _record("barrier_count", "how many threads arrived at a barrier (built with CLTC_COV_COUNTS=1)",
            "barrier:uint", "n:u64"),
    _record("divergence", "a barrier part of a block reached", "barrier:uint", "block:dim3", "arrived:uint",
            "threads:uint"),
    _record("unit", "a unit built by cltc-cc: its items (cltestcheck/coverage/sites.py SiteTable, as JSON, its own "
            "ids) and where they sit among the program's (flag and barrier ids: the unit's first, given when it "
            "registers, plus its own); counts 1: built to count executions (CLTC_COV_COUNTS=1)",
            "flag_base:uint", "barrier_base:uint", "flags:uint", "barriers:uint", "counts:uint", "table:str"),
    _record("process", "the process that wrote the log (logs of cltc-cc builds), and the backend it ran on",
            "pid:uint", "command:str", "backend:str"),
    _record("end", "the last record: the log is complete", "launches:uint", "divergence_total:uint"),
)

REACH_LOG = (   # cltc mutate: the mutation sites the original program reaches (CLTC_MUT_REACH, CLTC_MUT_LOG_DIR)
    _record("reached", "a mutation site the run reached (a cltc-cc build: the unit's first site plus its own)",
            "site:uint"),
    _record("unit", "a unit built by cltc-cc for mutation: its mutants (cltestcheck/mutate/units.py, as JSON, its "
            "own ids and sites), its first site among the program's (given when it registers), and its own id of "
            "the mutant CLTC_MUTANT selects (0: none of its own)", "site_base:uint", "sites:uint", "mutants:uint",
            "active:uint", "table:str"),
    _record("process", "the process that wrote the log (logs of cltc-cc builds), and the backend it ran on",
            "pid:uint", "command:str", "backend:str"),
    _record("end", "the last record: the log is complete"),
)

SCHEDULE_LOG = (   # cltc amplify: the launches a run made (CLTC_SCHED_LOG, CLTC_SCHED_LOG_DIR)
    _record("launch", "a launch, in program order", "blocks:uint"),
    _record("process", "the process that wrote the log (logs written to CLTC_SCHED_LOG_DIR), and the backend it "
            "ran on", "pid:uint", "command:str", "backend:str"),
    _record("end", "the last record: the log is complete"),
)

SEARCH_LOG = (   # cltc search: how close each comparison of a branch or loop came to each outcome (CLTC_SEARCH_LOG)
    _record("cmp", "a comparison that decides a branch, by the coverage flag of its true arm (the false arm's is "
            "the next): the least distance the run saw to making it true and to making it false (0: it was; "
            "integers: the difference, floating point: steps between representable values)", "flag:uint",
            "to_true:u64", "to_false:u64"),
    _record("loop", "a loop whose condition is one comparison, by the coverage flag of one of its cases (body 0 "
            "times, once, more than once): the least distance the run saw to that case (the condition's distance "
            "to false at an entry's first test, to false and to true at its second)", "flag:uint", "distance:u64"),
    _record("end", "the last record: the log is complete"),
)

LOGS = {"hirace_log": HIRACE_LOG, "coverage_log": COVERAGE_LOG, "reach_log": REACH_LOG,
        "schedule_log": SCHEDULE_LOG, "search_log": SEARCH_LOG}   # C++ namespace of the writers -> records
