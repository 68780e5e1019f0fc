"""The result of a hirace run: races as data, interpreted from the runtime's log.
Reporters (report_text, report_json, report_sarif) only read these objects."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from instrument import logs
from instrument.errors import UserError
from instrument.protocol import HIRACE_LOG, Env, Space

from . import fsm
from .sites import Site

ACCESS_NAMES = ("read", "write", "block-scope atomic", "device-scope atomic")


@dataclass(frozen=True)
class SiteRef:
    file: str
    line: int
    column: int
    text: str
    kind: str
    variable: str = ""       # the name the access uses (a kernel's parameter, a shared array)
    proof: str = ""          # the rule that reduces its check to a bounds test where its launch condition
                             # holds ('' none: it is always checked whole; hirace/proofs)


@dataclass
class Race:
    kind: str                # read-write, write-write, atomic-plain, atomic-atomic
    memory: str              # global | shared
    kernel: str
    launch: int
    access: str              # this access: read, write, ...
    site: SiteRef
    thread: tuple
    block: tuple
    prior_thread: tuple
    prior_block: tuple
    prior_site: SiteRef | None
    scope: str               # what ordering was missing
    variable: str
    offset: int              # bytes from the start of the buffer or shared window
    count: int               # racing word accesses folded into this report
    prior_is_other: bool = False   # the conflicting thread is another one than the recorded accessor
    # its earlier site is not recorded: the buffer kept no prior sites then, for hirace's memory budget
    # (runtime/include/hirace/host_site_budget.h; the next launch that races there names it)
    prior_budgeted: bool = False
    suppressed: str = ""           # what marked it a known benign race (suppress.py); '' a finding


@dataclass
class MemError:
    """An out-of-bounds access site: the first access there, and how many there were."""
    kind: str                # out-of-bounds
    access: str              # read, write, atomic
    memory: str              # global | shared
    kernel: str
    launch: int
    site: SiteRef
    buffer: str              # the buffer or array, '' when the address lies outside every buffer
    buffer_size: int         # its bytes
    allocated_at: tuple | None   # (file, line) where the program allocated (declared) it
    offset: int              # bytes from the buffer's start to the access (negative: before it)
    size: int                # bytes the access covers
    thread: tuple
    block: tuple
    count: int               # out-of-bounds accesses at this site (all launches)

    def where(self) -> str:
        """Where the access lies relative to its buffer, in words."""
        if not self.buffer:
            return "outside every buffer of the program"
        if self.offset < 0:
            return f"{-self.offset} bytes before the start of"
        if self.offset >= self.buffer_size:
            return f"{self.offset - self.buffer_size} bytes past the end of"
        return f"across the end (at byte {self.offset}) of"


@dataclass(frozen=True)
class Operation:
    """One side of a race between operations the host does not order (hirace/host_streams.h): a kernel
    launch or an API call (a copy, a set), where the program issued it, on which stream, and how it
    touched the bytes."""
    op: str                  # "kernel", the API call (cudaMemcpyAsync, cudaMemset, ...), or "host read"/"host write"
                             # (an access by host code: hirace/host_access.h; stream "host")
    kernel: str              # the kernel's name ('' for an API call)
    file: str
    line: int
    stream: str              # the stream as the program named it where it created it, or which default stream
    access: str              # read, write, atomic

    def name(self) -> str:
        return f"kernel '{self.kernel}'" if self.op == "kernel" else "the host" if self.host else self.op

    @property
    def host(self) -> bool:
        """An access by host code (of managed or pinned memory), not an operation on a stream."""
        return self.op in ("host read", "host write")


@dataclass
class StreamRace:
    """Two operations the host's calls leave unordered that touch the same bytes, one writing."""
    kind: str                # write-write, read-write, atomic-write, atomic-read
    first: Operation         # the one issued first
    second: Operation
    buffer: str              # the buffer's name; '' memory hirace does not track (offset: the address)
    allocated_at: tuple | None
    offset: int              # the first byte both touch, from the buffer's start
    size: int                # bytes from it to the last byte both touch
    count: int               # times these two places raced (loops)

    def order_hint(self) -> str:
        """What would order the two: a synchronisation, an event wait, or (two nodes of one graph) an edge."""
        if self.first.stream == self.second.stream and self.first.stream.startswith(GRAPH_NODE):
            return ("an edge from the first node to the second (cudaGraphAddDependencies, or a dependency given when "
                    "the second is added; in a stream capture, an event recorded after the first and waited for "
                    "before the second)")
        a, b = (_stream_call(x.stream.removeprefix(GRAPH_NODE)) for x in (self.first, self.second))
        if self.second.host:
            return (f"a cudaStreamSynchronize({a}) (or cudaDeviceSynchronize, or a cudaEventSynchronize of an event "
                    f"recorded on {a} after the first) before the host's access")
        if a == b:   # (one stream orders its operations: another default stream of another host thread)
            return f"a synchronisation of {self.first.stream} before the second is issued"
        return (f"a cudaStreamSynchronize({a}) (or cudaDeviceSynchronize) before the second is issued, or a "
                f"cudaEventRecord(ev, {a}) after the first and cudaStreamWaitEvent({b}, ev) before the second")


# the prefix of a graph node's stream (hirace/host_graphs.h): the node runs as part of a graph launched there
GRAPH_NODE = "graph node on "


def _stream_call(stream: str) -> str:
    """A stream as a call names it."""
    return {"legacy default stream": "0", "per-thread default stream": "cudaStreamPerThread"}.get(stream, stream)


@dataclass
class Launch:
    """One launch the log records, and what was reported against it (`tally`)."""
    id: int
    kernel: str
    grid: tuple
    block: tuple
    quiet: bool = False      # it ran the kernel's quiet version
    failed: bool = False     # the launch itself failed: the kernel never ran
    selected: bool = True    # its kernel was selected (kernels, kernels_exclude): else it ran unchecked
    races: int = 0           # races reported against it
    memory_errors: int = 0   # out-of-bounds sites first met in it


@dataclass
class RaceReport:
    """What a hirace run found: its races and out-of-bounds accesses, the launches checked, and
    what the runtime noted."""
    races: list[Race] = field(default_factory=list)
    # races between operations the host does not order (streams, copies: hirace/host_streams.h)
    stream_races: list[StreamRace] = field(default_factory=list)
    suppressed: list[Race] = field(default_factory=list)   # known benign races: reported, not findings
    memory_errors: list[MemError] = field(default_factory=list)
    dropped: int = 0
    launches: int = 0
    failed_launches: int = 0     # launches that failed themselves (a bad configuration): not checked, not counted above
    unselected: int = 0          # launches of kernels the run did not select: run unchecked, not counted above
    # (blocks, threads per block) of each launch checked: a `blocks`/`threads` range that matches
    # none of them checked nothing (unmatched_range)
    shapes: list[tuple[int, int]] = field(default_factory=list, repr=False)
    program_exit: int = 0
    granularity: int = 4
    warnings: list[str] = field(default_factory=list)
    backend: str = ""
    prior_sites: bool = True     # the run recorded each word's last accesses (reports name both sites)
    # what the run checked: the program's sites, how many of them ran, and those that never ran on
    # this input (None: the log does not say)
    sites_total: int | None = None
    sites_ran: int = 0
    never_ran: list[SiteRef] = field(default_factory=list)
    site_ran: dict[tuple, tuple[SiteRef, bool]] = field(default_factory=dict, repr=False)   # by (file, line, column)
    # every launch of every process, in order (a merged report's ids repeat: each process numbers its own)
    kernel_launches: list[Launch] = field(default_factory=list, repr=False)

    def findings(self) -> bool:
        """Whether the run found anything: a race of either kind, or an out-of-bounds access."""
        return bool(self.races or self.stream_races or self.memory_errors)

    def kernels(self) -> list[str]:
        """The kernels launched, and those findings name, each once, in the order first met."""
        names = [x.kernel for x in self.kernel_launches] + [r.kernel for r in [*self.races, *self.memory_errors]]
        return list(dict.fromkeys(names))


def _coords(linear: int, dims) -> tuple:
    x, y = dims[0], dims[1]
    return (linear % x, (linear // x) % y, linear // (x * y))


def _clash_level(state: fsm.State, same_block: bool, same_warp: bool, read: bool = False) -> tuple[str, str]:
    """(class of the level the access clashed with, scope description). In MB_RW (several readers of one
    release, docs/memory-model.md) the record names the access the reads were ordered after: a read clashes
    with it, where it was; anything else with the reads."""
    if state == fsm.AFTER_WRITER:
        if not read:
            return "R", "reads of several threads, some not ordered before it (several readers of one release)"
        if same_block:
            return state.grid, ("same warp, not ordered after it" if same_warp else
                                "same block, different warps, not ordered after it")
    if state.kind == "MB" or not same_block:
        return state.grid, "different blocks (nothing orders blocks within a launch)"
    if state.kind == "MW" or not same_warp:
        return state.block, "same block, different warps, no __syncthreads between them"
    return state.warp, "same warp, no __syncwarp (or __syncthreads) between them"


def _race_kind(access: int, cls: str, prior: SiteRef | None) -> str:
    mine = ("read", "write", "atomic", "atomic")[access]
    if prior is not None:
        other = {"read": "read", "write": "write", "rmw": "write", "atomic": "atomic"}[prior.kind]
    else:
        # class X (a write, or reads mixed with atomics) is reported as a write
        other = {"R": "read", "A": "atomic", "AG": "atomic", "AB": "atomic"}.get(cls, "write")
    pair = {mine, other}
    if pair == {"atomic"}:
        return "atomic-atomic"
    if "atomic" in pair:
        return "atomic-plain"
    return "write-write" if pair == {"write"} else "read-write"


def buffer_name(written: str) -> str:
    """The buffer's name from the allocation's pointer argument as written: `(void **)&d_a` -> d_a."""
    found = re.findall(r"&\s*\(?\s*([A-Za-z_][\w.\[\]]*(?:->[\w.\[\]]+)*)", written)
    if found:
        return found[-1]
    words = re.findall(r"[A-Za-z_]\w*", written)
    return words[-1] if words else written


def _launch_problem(r, launches: dict) -> str:
    if r.launch not in launches:
        return f"names launch {r.launch}, which the log does not have"
    if 0 in launches[r.launch].grid or 0 in launches[r.launch].block:
        return f"names launch {r.launch}, whose grid or block has a zero dimension"
    return ""


def _inconsistent(r, launches: dict, nsites: int) -> str:
    """What is wrong with a race record's references (what the runtime wrote must name a launch,
    sites and states that exist); '' when nothing."""
    if _launch_problem(r, launches):
        return _launch_problem(r, launches)
    if r.site >= nsites or not -1 <= r.prior_site < nsites:
        return f"names site {r.site if r.site >= nsites else r.prior_site}; the program has {nsites}"
    if r.prior_state >= len(fsm.STATES) or r.access >= len(ACCESS_NAMES) or r.space not in list(Space):
        return "holds a state, access or memory space that does not exist"
    return ""


def _mem_inconsistent(r, launches: dict, nsites: int, buffers: dict) -> str:
    """The same for a memory error record (its buffer, when it names one, must exist)."""
    if _launch_problem(r, launches):
        return _launch_problem(r, launches)
    if r.site >= nsites:
        return f"names site {r.site}; the program has {nsites}"
    if r.access >= len(ACCESS_NAMES) or r.space not in list(Space) or not (r.buffer == -1 or r.buffer in buffers):
        return "holds an access, memory space or buffer that does not exist"
    if r.count == 0:
        return "counts no access"
    return ""


def _memory_errors(log, launches: dict, sites: list[Site], buffers: dict) -> list[MemError]:
    out: dict[tuple, MemError] = {}
    for n, r in enumerate(log["memory_error"], 1):
        problem = _mem_inconsistent(r, launches, len(sites), buffers)
        if problem:
            raise logs.LogError(f"hirace's log is inconsistent: memory error record {n} {problem}",
                                hint=logs.DAMAGE_HINT)
        key = (r.site, r.buffer)
        if key in out:   # one report per site and buffer
            out[key].count += r.count
            continue
        L = launches[r.launch]
        site = sites[r.site]
        memory = "shared" if r.space == Space.SHARED else "global"
        allocated = None
        if r.buffer >= 0:
            b = buffers[r.buffer]
            name, size = buffer_name(b.name), b.size
            allocated = (b.file, b.line) if b.line else None
        elif site.bound in ("array", "dynamic"):
            name, size = site.variable, r.limit
        elif memory == "shared":
            name, size = "the block's shared memory", r.limit
        else:
            name, size = "", 0
        access = "atomic" if r.access >= 2 else ACCESS_NAMES[r.access]
        out[key] = MemError(
            kind="out-of-bounds", access=access, memory=memory, kernel=L.kernel, launch=r.launch,
            site=SiteRef(site.file, site.line, site.column, site.text, site.kind), buffer=name,
            buffer_size=size, allocated_at=allocated, offset=r.offset, size=r.size,
            thread=_coords(r.tid, L.block), block=_coords(r.bid, L.grid), count=r.count)
    return sorted(out.values(), key=lambda m: (m.launch, m.site.file, m.site.line, m.site.column, m.buffer))


_STREAM_KINDS = {frozenset({"write"}): "write-write", frozenset({"read", "write"}): "read-write",
                 frozenset({"atomic", "write"}): "atomic-write", frozenset({"atomic", "read"}): "atomic-read"}


def _stream_name(written: str) -> str:
    """A stream as the runtime names it: the pointer argument of the call that created it (`&s1` -> s1), or
    its own words for a default stream and for a stream created where hirace did not see it."""
    if written in ("legacy default stream", "per-thread default stream") or written.startswith("stream "):
        return written
    if written.startswith(GRAPH_NODE):
        return GRAPH_NODE + _stream_name(written.removeprefix(GRAPH_NODE))
    return buffer_name(written)


def _stream_races(log, buffers: dict) -> list[StreamRace]:
    out = []
    for r in log.get("stream_race", []):
        first = Operation(r.first_op, r.first_kernel, r.first_file, r.first_line, _stream_name(r.first_stream),
                          r.first_access)
        second = Operation(r.second_op, r.second_kernel, r.second_file, r.second_line, _stream_name(r.second_stream),
                           r.second_access)
        b = buffers.get(r.buffer) if r.buffer >= 0 else None
        out.append(StreamRace(
            kind=_STREAM_KINDS.get(frozenset({r.first_access, r.second_access}), "read-write"), first=first,
            second=second, buffer=buffer_name(b.name) if b else "", allocated_at=(b.file, b.line) if b and b.line else None,
            offset=r.offset, size=r.size, count=r.count))
    return sorted(out, key=lambda x: (x.first.file, x.first.line, x.second.file, x.second.line, x.buffer))


def _sites_of(log) -> list[Site]:
    """The site table a log carries (programs built through hirace-cc: each unit's sites, numbered
    from the unit's first id)."""
    by_id = {r.id: Site(r.id, r.file, r.line, r.column, r.kind, r.text, r.function, r.variable, r.space, r.bound)
             for r in log["site"]}
    if set(by_id) != set(range(len(by_id))):
        raise logs.LogError("hirace's log is inconsistent: its site records are not numbered 0 to "
                            f"{len(by_id) - 1}", hint=logs.DAMAGE_HINT)
    return [by_id[i] for i in range(len(by_id))]


def _ranges(text: str, total: int) -> set[int]:
    """The ids a sites record's `ran` names ("0-5,7,9-12")."""
    out: set[int] = set()
    for part in filter(None, text.split(",")):
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()) or int(hi or lo) >= max(total, 1) or int(hi or lo) < int(lo):
            raise logs.LogError(f"hirace's log is inconsistent: its sites record names '{part}'", hint=logs.DAMAGE_HINT)
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def _count_sites(res: RaceReport) -> None:
    """sites_total, sites_ran and never_ran from site_ran (a site written once is one site, whatever
    checks its text got: the instrumented copies of a header in several units)."""
    res.sites_total = len(res.site_ran)
    res.sites_ran = sum(ran for _, ran in res.site_ran.values())
    res.never_ran = sorted((ref for ref, ran in res.site_ran.values() if not ran),
                           key=lambda r: (r.file, r.line, r.column))


def collect(log_path: Path, sites: list[Site] | None, warp_size: int = 32) -> RaceReport:
    """The report of one log; `sites`: the build's site table (None: the log's own, hirace-cc builds)."""
    if not log_path.is_file():
        raise UserError("the program ended without writing hirace's log (it crashed, called _exit, "
                        "or never returned from main)")
    log = logs.read(log_path, HIRACE_LOG, "hirace's log")
    if not log["end"]:
        raise logs.LogError("hirace's log is incomplete (it has no end record)", hint=logs.DAMAGE_HINT)
    if sites is None:
        sites = _sites_of(log)
        res_backend = ",".join(sorted({p.backend for p in log["process"]}))
    else:
        res_backend = ""
    res = RaceReport(granularity=log["end"][-1].granularity, backend=res_backend)
    if log["sites"]:
        ran = _ranges(log["sites"][-1].ran, log["sites"][-1].total)
        for x in sites:
            key = (x.file, x.line, x.column)
            ref, before = res.site_ran.get(key, (SiteRef(x.file, x.line, x.column, x.text, x.kind, x.variable), False))
            res.site_ran[key] = (ref, before or x.id in ran)
        _count_sites(res)
    buffer_records = {b.id: b for b in log["buffer"]}
    buffers = {b.id: buffer_name(b.name) for b in log["buffer"]}
    launches = {x.id: x for x in log["launch"]}
    res.memory_errors = _memory_errors(log, launches, sites, buffer_records)
    if log["end"][-1].sites_evicted:
        res.warnings.append("device memory ran short: hirace gave up the prior-site slots of the program's "
                            "buffers (16 bytes per word) to make room, so races in global memory found after that "
                            "name the other access without its site")
    mem_dropped = sum(x.memory_dropped for x in log["launch"] if not x.quiet)
    if mem_dropped:
        res.warnings.append(f"{mem_dropped} out-of-bounds records were dropped (more sites than max_reports)")
    for x in log["launch"]:
        res.dropped += x.dropped
        if x.quiet and x.memory_dropped:   # (its threads note their first few sites: hirace/proofs/quiet_version.py)
            res.warnings.append(f"{x.memory_dropped} out-of-bounds records of kernel '{x.kernel}' (launch {x.id}) "
                                f"were dropped: more sites than max_reports, or more than a thread of the kernel's "
                                f"quiet version notes ({Env.HIRACE_QUIET_VERSIONS}=0 names every site)")
        if x.wrapped:
            res.warnings.append(f"kernel '{x.kernel}' (launch {x.id}) passed more barriers "
                                f"than the shadow's clocks count; from then on, races between accesses "
                                f"with no barrier between them were not reported for that launch")
    res.launches = sum(1 for x in log["launch"] if not x.failed)
    res.failed_launches = len(log["launch"]) - res.launches
    res.shapes = [(math.prod(x.grid), math.prod(x.block)) for x in log["launch"] if not x.failed]
    merged: dict[tuple, Race] = {}
    for n, r in enumerate(log["race"], 1):
        problem = _inconsistent(r, launches, len(sites))
        if problem:
            raise logs.LogError(f"hirace's log is inconsistent: race record {n} {problem}", hint=logs.DAMAGE_HINT)
        # threads that log the same race at once on a GPU may each add a record: one report per
        # (launch, site, prior site, memory, prior state), the counts summed
        key = (r.launch, r.site, r.prior_site, r.space, r.prior_state)
        if key in merged:
            merged[key].count += r.count
            continue
        L = launches[r.launch]
        site = sites[r.site]
        ref = SiteRef(site.file, site.line, site.column, site.text, site.kind, site.variable, site.proof)
        prior = None
        if r.prior_site >= 0:
            p = sites[r.prior_site]
            prior = SiteRef(p.file, p.line, p.column, p.text, p.kind, p.variable, p.proof)
        state = fsm.STATES[r.prior_state]
        self_conflict = (r.tid, r.bid) == (r.prior_tid, r.prior_bid)
        if self_conflict:
            # the record names this thread; the conflicting access is another thread's,
            # from a level several threads shared (see docs/fsm.md), so its site is unknown
            prior = None
        same_block = r.bid == r.prior_bid
        same_warp = same_block and r.tid // warp_size == r.prior_tid // warp_size
        cls, scope = _clash_level(state, same_block, same_warp, read=r.access == 0)
        memory = "shared" if r.space == Space.SHARED else "global"
        variable = site.variable if (memory == "shared" or not buffers.get(r.buffer)) else buffers[r.buffer]
        merged[key] = Race(
            kind=_race_kind(r.access, cls, prior), memory=memory, kernel=L.kernel, launch=r.launch,
            access=ACCESS_NAMES[r.access], site=ref,
            thread=_coords(r.tid, L.block), block=_coords(r.bid, L.grid),
            prior_thread=_coords(r.prior_tid, L.block), prior_block=_coords(r.prior_bid, L.grid),
            prior_site=prior, scope=scope, variable=variable or site.text, offset=r.offset,
            count=r.count, prior_is_other=self_conflict,
            prior_budgeted=prior is None and bool(r.budgeted))
    res.races = list(merged.values())
    res.races.sort(key=lambda x: (x.launch, x.site.file, x.site.line, x.site.column))
    res.stream_races = _stream_races(log, buffer_records)
    res.kernel_launches = [Launch(x.id, x.kernel, tuple(x.grid), tuple(x.block), bool(x.quiet), bool(x.failed))
                           for x in log["launch"]]
    tally(res)
    return res


def select(res: RaceReport, kernels, exclude) -> None:
    """Set apart the launches of kernels the run did not select (`kernels`, `kernels_exclude`: the runtime's
    kernel_selected, host_launch.h, ran them unchecked), so that they are not counted as checked."""
    for x in res.kernel_launches:
        x.selected = (not kernels or x.kernel in kernels) and x.kernel not in exclude
    n = sum(not x.selected and not x.failed for x in res.kernel_launches)
    res.launches -= n
    res.unselected += n


def tally(res: RaceReport) -> None:
    """Each launch's counts of what the report holds against it (again after suppressions moved races)."""
    for x in res.kernel_launches:
        x.races = sum(r.launch == x.id for r in res.races)
        x.memory_errors = sum(m.launch == x.id for m in res.memory_errors)


def merge(reports: list[RaceReport]) -> RaceReport:
    """One report of several processes' (`hirace run -- COMMAND`): a race or out-of-bounds site that
    several processes met (a test binary run by several tests) is reported once, its counts summed."""
    out = RaceReport()
    races: dict[tuple, Race] = {}
    mems: dict[tuple, MemError] = {}
    for rep in reports:
        out.launches += rep.launches
        out.failed_launches += rep.failed_launches
        out.unselected += rep.unselected
        out.shapes += rep.shapes
        out.kernel_launches += rep.kernel_launches
        out.dropped += rep.dropped
        out.granularity = rep.granularity
        out.prior_sites = rep.prior_sites
        out.warnings += [w for w in rep.warnings if w not in out.warnings]
        out.suppressed += rep.suppressed
        for key, (ref, ran) in rep.site_ran.items():   # a site ran if it ran in any process
            out.site_ran[key] = (ref, ran or out.site_ran.get(key, (ref, False))[1])
        out.backend = ",".join(sorted(set(filter(None, out.backend.split(",") + [rep.backend]))))
        for r in rep.races:
            prior = (r.prior_site.file, r.prior_site.line, r.prior_site.column) if r.prior_site else None
            key = (r.kind, r.memory, r.kernel, r.site.file, r.site.line, r.site.column, prior)
            if key in races:
                races[key].count += r.count
            else:
                races[key] = r
        for m in rep.memory_errors:
            key = (m.kernel, m.site.file, m.site.line, m.site.column, m.buffer)
            if key in mems:
                mems[key].count += m.count
            else:
                mems[key] = m
    out.races = list(races.values())
    out.memory_errors = list(mems.values())
    streams: dict[tuple, StreamRace] = {}
    for rep in reports:
        for x in rep.stream_races:
            key = (x.first, x.second, x.buffer)
            if key in streams:
                streams[key].count += x.count
            else:
                streams[key] = x
    out.stream_races = list(streams.values())
    if out.site_ran:
        _count_sites(out)
    return out


def unmatched_range(res: RaceReport, blocks, threads) -> str | None:
    """What a `blocks` or `threads` range ([first, last] linear ids) checked when it matched no thread
    of any launch that ran (nothing: the run is not a pass), or None."""
    if not res.launches:
        return None
    for key, rng, index, unit in (("blocks", blocks, 0, "blocks"), ("threads", threads, 1, "threads per block")):
        if rng and not any(shape[index] > rng[0] for shape in res.shapes):
            widest = max(shape[index] for shape in res.shapes)
            return (f"'{key}' = [{rng[0]}, {rng[1]}] matched no thread: the launches had at most {widest} {unit} "
                    f"(linear ids 0 to {widest - 1}), so nothing was checked")
    return None
