"""What the Python tools and the C++ runtimes agree on, declared once.

Every environment variable a runtime header reads, every exit status a runtime ends a program
with, the mutation operator codes and the loop-coverage cases are declared here; the C++ side,
runtime/include/cudacommon/protocol.h, is generated from this module
(`python -m instrument.genprotocol`, checked for staleness by the test suite), and the Python
side imports the names from here. Nothing of this is spelled by hand on both sides.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum


class Env(StrEnum):
    """The environment variables the runtimes read (a StrEnum: usable as an env dict key)."""
    HIRACE_LOG = "HIRACE_LOG"
    HIRACE_LOG_DIR = "HIRACE_LOG_DIR"
    HIRACE_EXITCODE = "HIRACE_EXITCODE"
    HIRACE_KERNELS = "HIRACE_KERNELS"
    HIRACE_MAX_REPORTS = "HIRACE_MAX_REPORTS"
    HIRACE_PRIOR_SITES = "HIRACE_PRIOR_SITES"
    HIRACE_BLOCKS = "HIRACE_BLOCKS"
    HIRACE_THREADS = "HIRACE_THREADS"
    HIRACE_BOUNDS = "HIRACE_BOUNDS"
    HIRACE_QUIET_VERSIONS = "HIRACE_QUIET_VERSIONS"
    CLTC_COV_LOG = "CLTC_COV_LOG"
    CLTC_MUTANT = "CLTC_MUTANT"
    CLTC_MUT_REACH = "CLTC_MUT_REACH"
    CLTC_SCHEDULE = "CLTC_SCHEDULE"
    CLTC_SCHED_LOG = "CLTC_SCHED_LOG"
    CUDAEMU_SEED = "CUDAEMU_SEED"
    CUDAEMU_SWITCH = "CUDAEMU_SWITCH"
    CUDAEMU_STACK_KB = "CUDAEMU_STACK_KB"
    CUDAEMU_BLOCK_ORDER = "CUDAEMU_BLOCK_ORDER"
    CUDAEMU_EXITED_ARRIVE = "CUDAEMU_EXITED_ARRIVE"
    CUDAEMU_DEVICE_MB = "CUDAEMU_DEVICE_MB"


@dataclass(frozen=True)
class OptionDoc:
    runtime: str    # the header that reads it
    value: str      # what its value looks like
    help: str


OPTIONS: dict[Env, OptionDoc] = {
    Env.HIRACE_LOG: OptionDoc("hirace/host.h", "path", "where the race log is written at exit"),
    Env.HIRACE_LOG_DIR: OptionDoc("hirace/host.h", "directory", "where each process writes a log of its own at exit "
                                  "(hirace-PID-N.jsonl, never over another file), when HIRACE_LOG is unset; "
                                  "`hirace run -- COMMAND` sets it"),
    Env.HIRACE_EXITCODE: OptionDoc("hirace/units.h", "status", "the exit status of a program built by hirace-cc that "
                                   "found races or out-of-bounds accesses and reported them itself (default 66; "
                                   "0: keep the program's own)"),
    Env.HIRACE_KERNELS: OptionDoc("hirace/host.h", "name,name", "check only launches of these kernels"),
    Env.HIRACE_MAX_REPORTS: OptionDoc("hirace/host.h", "count", "race records kept per launch"),
    Env.HIRACE_PRIOR_SITES: OptionDoc("hirace/host.h", "0|1", "record each word's last accesses, so races name both "
                                      "(default 1; 0 saves 16 bytes per shadow word)"),
    Env.HIRACE_BLOCKS: OptionDoc("hirace/host.h", "lo:hi", "check only blocks lo..hi (linear ids)"),
    Env.HIRACE_THREADS: OptionDoc("hirace/host.h", "lo:hi", "check only threads lo..hi of each block"),
    Env.HIRACE_BOUNDS: OptionDoc("hirace/host.h", "0|1", "redzones and out-of-bounds checks (default 1; 0 "
                                 "only to measure their cost)"),
    Env.HIRACE_QUIET_VERSIONS: OptionDoc("hirace/host.h", "0|1", "launch a kernel's quiet version where its "
                                         "launch conditions hold (default 1; 0: every launch runs the kernel, to measure what "
                                         "the versions save, or to name every out-of-bounds site of a thread that meets more "
                                         "than a version's thread notes)"),
    Env.CLTC_COV_LOG: OptionDoc("cltc/coverage.h", "path", "where the coverage flags are written at exit"),
    Env.CLTC_MUTANT: OptionDoc("cltc/mutate.h", "id", "the active mutant (0: none)"),
    Env.CLTC_MUT_REACH: OptionDoc("cltc/mutate.h", "path", "where the reached mutation sites are written"),
    Env.CLTC_SCHEDULE: OptionDoc("cltc/schedule.h", "spec", "the block schedule to impose (amplify)"),
    Env.CLTC_SCHED_LOG: OptionDoc("cltc/schedule.h", "path", "where the schedule actually run is written"),
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
# kind and its thread's barrier clocks, hirace/runtime.h SiteSlots): a program has at most
# 2**SITE_ID_BITS instrumented accesses.
SITE_ID_BITS = 20


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
    _record("buffer", "a tracked allocation, and where the program made it (line 0: unknown)", "id:size",
            "name:str", "size:size", "file:str", "line:uint"),
    _record("launch", "a checked launch; quiet 1: it ran its kernel's quiet version (hirace/quiet_version.py); "
            "failed 1: the launch itself failed (a bad configuration): its kernel never ran",
            "id:size", "kernel:str", "grid:dim3", "block:dim3", "dropped:uint", "wrapped:uint", "memory_dropped:uint",
            "quiet:uint", "failed:uint"),
    _record("race", "one race record of a launch", "launch:uint", "site:uint", "prior_site:int", "tid:uint",
            "bid:uint", "prior_tid:uint", "prior_bid:uint", "prior_state:uint", "access:uint", "space:uint",
            "buffer:uint", "offset:u64", "count:uint"),
    _record("memory_error", "an out-of-bounds access site of a launch (the first access, and how many); "
            "buffer -1: outside every buffer, or a declared array (the site names it)", "launch:uint",
            "site:uint", "tid:uint", "bid:uint", "access:uint", "space:uint", "buffer:int", "offset:i64",
            "limit:u64", "size:uint", "count:uint"),
    _record("site", "an instrumented access of a unit built by hirace-cc (instrument/compile_line.py), by the id "
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
    _record("end", "the last record: the log is complete", "launches:uint", "divergence_total:uint"),
)

REACH_LOG = (   # cltc mutate: the mutation sites the original program reaches (CLTC_MUT_REACH)
    _record("reached", "a mutation site the run reached", "site:uint"),
    _record("end", "the last record: the log is complete"),
)

SCHEDULE_LOG = (   # cltc amplify: the launches a run made (CLTC_SCHED_LOG)
    _record("launch", "a launch, in program order", "blocks:uint"),
    _record("end", "the last record: the log is complete"),
)

LOGS = {"hirace_log": HIRACE_LOG, "coverage_log": COVERAGE_LOG, "reach_log": REACH_LOG,
        "schedule_log": SCHEDULE_LOG}   # C++ namespace of the writers -> records
