"""Plan hirace's edits for one translation unit, and keep the site table.

- every access to memory that may be global or shared, in kernels and the
  device functions they call, goes through a check before it happens:
  `a[i]` -> `(*::hirace::rd(&(a[i]), 7u))` (wr for writes, rmw for `+=`/`++`);
- atomics check their address with their scope: `atomicAdd(&a[i], 1)` ->
  `atomicAdd(::hirace::atomic_device(&a[i], 8u), 1)`;
- barriers advance the thread's clocks after they complete;
- launches are bracketed by the host runtime (shadow, clocks, race log), and ask for hirace's
  area of dynamic shared memory (`block_entry` at each kernel's start clears it; see _enter);
- cudaMalloc/cudaMallocManaged/cudaMallocHost/cudaHostAlloc/cudaFree are tracked by the
  runtime headers' macros (also inside the user's macros), and `__device__` variables are
  registered.
"""
from __future__ import annotations

import re
from pathlib import Path

from instrument.errors import UnsupportedConstruct
from instrument.protocol import SITE_ID_BITS, Macro, define
from instrument.frontend import device_view
from instrument.frontend.api_launches import api_launches
from instrument.frontend.parse import WAITING_OBJECTS, Span
from instrument.frontend.query import GROUP_SYNC, Program
from instrument.frontend.rewrite import EditPlan, one_line

from . import buffer_widths, pointer_launches, sites as site_table
from .proofs import quiet_version, rules
from .proofs.call_context import QUIET_PARAM
from .proofs.shared_calls import IN_PREFIX, SIZE_PREFIX, atomic_functions
from .proofs.conditions import Condition, OwnIndex
from .proofs.facts import FactTable
from .proofs.proof import Proof, Rule, whole
from .config import Config
from .sites import Site


# streams a launch may name that are the default stream
_DEFAULT_STREAMS = {"0", "0x0", "NULL", "nullptr", "cudaStreamLegacy", "cudaStreamDefault"}
# the default stream written as a null pointer or zero
_ZERO_STREAMS = {"0", "0x0", "NULL", "nullptr", "cudaStreamDefault"}
# a stream expression hirace may evaluate once more without changing the program: names, members, subscripts
_PLAIN = re.compile(r"[A-Za-z_][\w\s.:\[\]]*(?:->[\w\s.:\[\]]*)*")
# a kernel argument hirace may evaluate once more: no call, assignment, increment or decrement
_PLAIN_ARG = re.compile(r"[\w\s.:\[\]+\-*/%&|^~<>?()]+")   # (parentheses: a cast, a grouping; never a call: _plain_arg)
_MACRO_ARG = re.compile(r"[\w\s.:\[\]+\-*&>/%(),]+")   # (with a pure macro's call: its parentheses and commas)
# runtime and driver functions that launch kernels without `<<<>>>` (or replay captured launches)
_LAUNCH_API = re.compile(rb"\bcu(?:da)?(?:Launch|Graph|StreamBeginCapture)\w*")
# member functions: what a library's kernel may call through an object the program passes it
_METHOD_KINDS = {"CXX_METHOD", "CONVERSION_FUNCTION", "CONSTRUCTOR", "DESTRUCTOR"}


# What a hook of synchronisation through memory does (docs/memory-model.md): bits of the runtime's
# memsync::How (runtime/include/hirace/memory_sync_hooks.h, the same values: tests/test_memory_sync_wiring.py)
MEMORY_HOW = {"load": 0, "store": 1, "rmw": 2, "cas": 3, "device": 4, "release_before": 8, "full_before": 16,
              "acquire_after": 32, "strong": 64, "then_store": 128, "volatile": 256, "held": 512}


def memory_sync_needed(prog: Program, reach: set[str]) -> bool:
    """Whether the unit follows synchronisation through memory (HIRACE_MEMORY_SYNC=1): it has a fence that
    orders something, or a libcu++ atomic operation with an order (its default, seq_cst, included). Without
    either nothing can release: a unit of barriers and plain CUDA atomics is built as it always was."""
    return any(f.function in reach and f.order != "relaxed" for f in prog.fences) or any(
        la.function in reach and la.scope != "thread" and la.order != "relaxed" for la in prog.lib_atomics)


def fence_how(scope: str, order: str) -> int:
    """A fence's hook: its scope (system counts as device) and what its order makes it do."""
    how = MEMORY_HOW["device"] if scope != "block" else 0
    if order in ("acquire", "consume"):
        return how | MEMORY_HOW["acquire_after"]
    if order == "release":
        return how | MEMORY_HOW["release_before"]
    return how | MEMORY_HOW["full_before"]   # seq_cst, acq_rel


def lib_atomic_how(la) -> int:
    """A libcu++ operation's hook: a strong access of its scope, with the fences its order implies."""
    reads, writes = la.use != "write", la.use != "read"
    op = "load" if la.use == "read" else "store" if la.use == "write" else \
        "cas" if la.name.startswith("compare_exchange") else "rmw"
    how = MEMORY_HOW["strong"] | MEMORY_HOW[op] | (MEMORY_HOW["device"] if la.scope != "block" else 0)
    if la.order == "seq_cst":
        how |= MEMORY_HOW["full_before"] | (MEMORY_HOW["acquire_after"] if reads else 0)
    if la.order in ("release", "acq_rel") and writes:
        how |= MEMORY_HOW["release_before"]
    if la.order in ("acquire", "consume", "acq_rel") and reads:
        how |= MEMORY_HOW["acquire_after"]
    return how


def atomic_how(at) -> int:
    """A CUDA atomic's hook: a read-modify-write of its scope (relaxed); atomicCAS one that may only read."""
    return MEMORY_HOW["strong"] | MEMORY_HOW["cas" if at.op == "atomicCAS" else "rmw"] | (
        MEMORY_HOW["device"] if at.scope != "block" else 0)


# calls that make a program's operations other than one stream's, in issue order (hirace/host_streams.h)
STREAM_APIS = frozenset({
    "cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority", "cudaEventRecord",
    "cudaStreamWaitEvent", "cudaMemcpyAsync", "cudaMemsetAsync", "cudaLaunchHostFunc", "cudaStreamAddCallback",
    # graphs and stream capture (host_graphs.h), stream-ordered allocation and the other asynchronous copies
    # (host_stream_copies.h)
    "cudaGraphCreate", "cudaGraphLaunch", "cudaStreamBeginCapture", "cudaMallocAsync", "cudaFreeAsync",
    "cudaMallocFromPoolAsync", "cudaMemcpy2DAsync", "cudaMemset2DAsync", "cudaMemcpyToSymbolAsync",
    "cudaMemcpyFromSymbolAsync", "cudaMemcpyPeerAsync"})


def uses_streams(prog: Program) -> bool:
    """Whether the unit uses streams, events or asynchronous copies (a call of STREAM_APIS, or a launch
    naming a stream other than the default one): on the cpu backend it is built with HIRACE_STREAMS=1."""
    if any(c.name in STREAM_APIS for c in prog.api_calls):
        return True
    src = prog.unit.source
    for ls in prog.launches:
        if len(ls.config_args) > 3:
            x = ls.config_args[3]
            if one_line(src(ls.span.file).text(x.start, x.end)).strip() not in _DEFAULT_STREAMS:
                return True
    return False


# calls that make CUDA graphs or launch them (hirace/host_graphs.h)
GRAPH_APIS = frozenset({"cudaGraphCreate", "cudaGraphLaunch", "cudaStreamBeginCapture", "cudaStreamBeginCaptureToGraph",
                        "cudaGraphAddKernelNode", "cudaGraphInstantiate", "cudaGraphInstantiateWithFlags"})


# calls that give the host memory a kernel or a copy may touch meanwhile (hirace/host_access.h)
HOST_MEMORY_APIS = frozenset({"cudaMallocManaged", "cudaMallocHost", "cudaHostAlloc", "cudaHostGetDevicePointer",
                              "cudaHostRegister"})


def uses_host_memory(prog: Program) -> bool:
    """Whether the unit uses managed or pinned (mapped) memory, or declares a __managed__ variable: the host's
    own accesses of it race with what it does not know done, so on the cpu backend it is built with
    HIRACE_STREAMS=1 too (the relation says what the host knows done; host_access.h watches the accesses)."""
    return any(c.name in HOST_MEMORY_APIS for c in prog.api_calls) or any(g.space == "managed" for g in prog.globals)


def _in_order(stream: str) -> str:
    """The launch's `in_order` argument: whether it runs on the legacy default stream (see
    hirace/host_launch.h before_launch); `false` (the launch waits) where the stream is not plainly named."""
    stream = stream.strip()
    if stream in _DEFAULT_STREAMS:
        return "::hirace::host::kLegacyDefaultStream"
    if _PLAIN.fullmatch(stream) and "--" not in stream:
        return f"::hirace::host::in_order_stream({stream})"
    return "false"


class HiracePlanner:
    def __init__(self, config: Config | None = None, lower_cpu: bool = False, unit_mode: bool = False):
        self.config = config or Config()
        # one unit built by itself (hirace-cc): its site table goes into its own text, and its checks
        # pass ids relative to the first id the runtime gives it (runtime/include/hirace/units.h)
        self.unit_mode = unit_mode
        # the sources are lowered for the host compiler (the cpu backend: instrument/frontend/lower_cpu.py)
        self.lower_cpu = lower_cpu
        # launches may ask for hirace's area of shared memory (not on the cpu backend, whose
        # lowering rewrites the launch configuration and keeps that state per block slot)
        self.shared_area = not lower_cpu
        self.sites: list[Site] = []
        # kernel (file, line, name) -> {"why": why it has no quiet version ('' where it has one),
        # "launches": [(file, line, why that launch cannot run it, '' where it may)]} (hirace explain)
        self.quiet_versions: dict[tuple[str, int, str], dict] = {}
        self.facts: list[FactTable] = []   # each unit's, as planned (hirace explain reads them)
        self.min_size = 8
        self.skipped: list[str] = []
        # accesses that cannot race, given a bounds check only (hirace/proofs/intervals.py: quiet shared
        # reads, each thread's own shared word; hirace/proofs/readonly_params.py: read-only parameters)
        self.bounds_only = 0
        self.own_vars: list[str] = []   # the kernels' own-index variables (unique names)
        # why instrumented code might run in a launch hirace does not bracket (then the state
        # between launches must be "off": hirace/host_launch.h after_launch); none: every launch is bracketed
        self.unbracketed: list[str] = []
        self.planned = 0
        # a sync that may take part of a warp (a tile, a partial mask): the checks compute lane groups
        self.lane_groups = False
        self.grid_syncs = False   # a grid.sync(): blocks numbered on past each (check.h)
        # a unit follows synchronisation through memory (memory_sync_needed): HIRACE_MEMORY_SYNC=1
        self.memory_sync = False
        # the program uses streams, events or asynchronous copies (uses_streams) or managed or pinned memory
        # (uses_host_memory): HIRACE_STREAMS=1, and every global access is checked whole (its launch's footprint
        # needs them all; declared shared memory's proofs stay: FactTable global_proofs); on the gpu backend each launch also says where it is and its stream (_stream_launch)
        self.streams = False
        # a unit allocates managed or pinned memory or declares a __managed__ variable (uses_host_memory): with
        # none in a whole program the host's accesses have nothing to watch (HIRACE_HOST_ACCESS=0)
        self.host_memory = False

    def _site(self, span, kind, text, function, variable, space, bound="", proof: Proof | None = None) -> int:
        sid = len(self.sites)
        if sid >= 1 << SITE_ID_BITS:
            raise UnsupportedConstruct(f"{span.file}:{span.line}: more than {1 << SITE_ID_BITS:,} instrumented "
                                       "accesses in one program (hirace numbers them in "
                                       f"{SITE_ID_BITS} bits)", hint="check the program's files in smaller groups")
        rule, cond, why, inside = "", "", "", ""
        if proof is not None:
            rule = proof.rule.title if proof.rule is not None else ""
            cond = proof.condition.device() if proof.condition is not None else ""
            why = proof.why
            inside = proof.inside.device() if proof.inside is not None else ""
        self.sites.append(Site(sid, span.file, span.line, span.col, kind, text, function, variable, space, bound,
                               rule, cond, why, inside))
        return sid

    def per_buffer(self) -> bool:
        """Whether each buffer's shadow takes its own granularity (host_granularity.h): not where hirace.toml
        sets one, nor in a unit built by itself (it cannot know the others' accesses)."""
        return not self.unit_mode and not self.config.granularity

    def granularity(self) -> int:
        if self.unit_mode:
            # every unit of a program must share the shadow's layout, and a unit cannot know the
            # others' accesses: one byte, unless the configuration says otherwise
            return self.config.granularity or 1
        return self.config.granularity or min(4, self.min_size)

    def defines(self) -> list[str]:
        """What the runtime must be built with, known once the program is planned."""
        out = [define(Macro.HIRACE_GRANULARITY_SHIFT, self.granularity().bit_length() - 1)]
        if self.per_buffer() and not self.streams:   # (buffers start at 4-byte words, made finer at launches:
            # buffer_widths.py; not where footprints and host accesses count the program's words: host_alloc.h)
            out.append(define(Macro.HIRACE_BUFFER_SHIFT, buffer_widths.BUFFER_SHIFT))
        if not self.unit_mode and not self.streams:   # (a buffer's state from the first launch that may write
            # it: host_buffer_state.h; not where footprints and host accesses need every buffer's, nor in a
            # unit built by itself, whose host code other units share)
            out.append(define(Macro.HIRACE_LAZY_STATE, 1))
        if self.lower_cpu or self.config.sites_ran:
            out.append(define(Macro.HIRACE_SITES_RAN, 1))   # (each site notes that it ran: launch_state.h `ran`)
        if not self.unit_mode:
            out.append(define(Macro.HIRACE_SITE_COUNT, len(self.sites)))   # (units register theirs: units.h)
        if not self.lane_groups:   # (a check without the lane-group inputs: fewer registers, update.h)
            out.append(define(Macro.HIRACE_LANE_GROUPS, 0))
            if not self.unit_mode:   # (and the planner saw every unit: no thread's groups narrow)
                out.append(define(Macro.HIRACE_WHOLE_WARPS, 1))
        if not self.grid_syncs:    # (nor the numbering past grid syncs: check.h)
            out.append(define(Macro.HIRACE_GRID_SYNCS, 0))
        if self.memory_sync:       # (fences, flags and locks followed: docs/memory-model.md)
            out.append(define(Macro.HIRACE_MEMORY_SYNC, 1))
        if self.streams:           # (the host's order of operations followed: hirace/host_streams.h)
            out.append(define(Macro.HIRACE_STREAMS, 1))
            if not self.unit_mode and not self.host_memory:   # (no memory to watch:
                out.append(define(Macro.HIRACE_HOST_ACCESS, 0))   # host_access.h left out of the build)
        if self.unit_mode:
            out.append(define(Macro.HIRACE_UNITS, 1))   # (other units may launch anything: no HIRACE_BRACKETED_ONLY)
        elif self.planned and not self.unbracketed:
            out.append(define(Macro.HIRACE_BRACKETED_ONLY, 1))
        return out

    def _sid(self, sid: int) -> str:
        """A site id as its check passes it, noting that the site ran in a build that records it
        (launch_state.h `ran`: the cpu backend, or sites_ran)."""
        text = f"::hirace::unit_site({sid}u)" if self.unit_mode else f"{sid}u"
        return f"::hirace::ran({text})" if self.lower_cpu or self.config.sites_ran else text

    def _register_unit(self, prog: Program, plan: EditPlan) -> None:
        """unit_mode: the unit's site table and its registration, at the end of its main file."""
        main = prog.unit.main
        rows = [f"{{{x.line}u, {x.column}u, {', '.join(_c_string(v) for v in (x.file, x.kind, x.text, x.function, x.variable, x.space, x.bound))}}}"
                for x in self.sites]
        table = (f"static const ::hirace::host::SiteInfo hirace_unit_sites[] = {{{', '.join(rows)}}}; "
                 if rows else "")
        text = (f"\nnamespace {{ {table}const unsigned hirace_unit_registered = ::hirace::register_this_unit("
                f"{'hirace_unit_sites' if rows else 'nullptr'}, {len(rows)}u); }}")
        data = prog.unit.source(main).data
        plan.insert(_end_span(main, data), len(data), text + "\n", "hirace site table of the unit", allow_macro=True)

    def _own_variables(self, facts: FactTable, plan: EditPlan, needs: dict) -> None:
        """Each kernel's own-index tests, computed once at its entry (`const bool __hirace_own0 =
        ::hirace::own_index(...)`), one variable per index form its own parameters share; an own
        parameter whose variable cannot be inserted gets no proof."""
        for kb, kp in facts.params.items():
            body, by_form = kp.kernel.body, {}
            for o in kp.own:
                key = (o.form.key(), tuple(f.key() for f in o.apart))
                var, test = by_form.get(key, (None, None))
                if var is None:
                    var = f"__hirace_own{len(self.own_vars)}"
                    test = OwnIndex(tuple(o.form.values()),
                                    tuple(tuple(o.form.all_values() + f.all_values()) for f in o.apart))
                    text = f" const bool {var} = {{}};"
                    if not plan.insert(body, body.start + 1, text.format(test.device()),
                                       f"hirace own index of {kp.kernel.params[o.position]}",
                                       quiet=text.format(test.device(_Q))):
                        continue
                    by_form[key] = (var, test)
                    self.own_vars.append(var)
                    if kp.kernel.name in needs:
                        needs[kp.kernel.name].own.append(test)
                facts.own_var[(kb, kp.kernel.params[o.position])] = (var, test)

    def unplanned(self, path: Path, data: bytes) -> None:
        """A source the pipeline builds as it is (C): it may still launch the program's kernels."""
        if _LAUNCH_API.search(data):
            self.unbracketed.append(f"{path}: a launch API")

    def _note_unbracketed(self, prog: Program, reach: set[str], touching: set[str]) -> None:
        """Whether this unit's instrumented code could run outside a bracketed launch: a launch
        API named in a user file (cudaLaunchKernel, graphs, stream capture), or a device function
        that reaches hirace's code and that a library's kernel could call: a member function (of an
        object passed to it) or a function named other than as a call's callee (its address)."""
        self.planned += 1
        unit = prog.unit
        texts = {f: unit.source(f).data if f in unit.files else Path(f).read_bytes() for f in unit.user_files}
        for f, data in texts.items():
            if _LAUNCH_API.search(data):
                self.unbracketed.append(f"{f}: a launch API")
        for name in sorted(reach & touching):
            fn = prog.functions.get(name)
            if fn is None or fn.kind == "global":
                continue
            cursor = prog.cursors.get((fn.body.file, fn.body.start))
            if cursor is None or cursor.kind.name in _METHOD_KINDS or not re.fullmatch(r"\w+", name):
                self.unbracketed.append(f"{name}: a member function")
                continue
            named = re.compile(rb"\b" + name.encode() + rb"\b(?!\s*[(<])")
            if any(named.search(data) for data in texts.values()):
                self.unbracketed.append(f"{name}: named other than in a call")

    def __call__(self, prog: Program, plan: EditPlan) -> None:
        unit = prog.unit
        src = unit.source
        reach = prog.device_reachable()
        # synchronisation through memory: strong accesses checked whole with their hooks, fences hooked,
        # barriers completing acquires (docs/memory-model.md); other units' edits are as they were
        memory = memory_sync_needed(prog, reach)
        self.memory_sync |= memory
        ignore = set(self.config.ignore)
        monitor = set(self.config.monitor)
        # what the analyses found (hirace/proofs): every access below gets its check from the rules
        self.host_memory |= uses_host_memory(prog)
        if (uses_streams(prog) or uses_host_memory(prog)) and (self.lower_cpu or self.config.gpu_streams):
            self.streams = True
        elif uses_streams(prog) or uses_host_memory(prog):   # (the gpu backend, not asked to: said in the report)
            first = min([c.span for c in prog.api_calls if c.name in STREAM_APIS | HOST_MEMORY_APIS] +
                        [g.span for g in prog.globals if g.space == "managed"] + [ls.span for ls in prog.launches],
                        key=lambda sp: (sp.file, sp.line))
            plan.warnings.append(f"{first.where()}: races between operations the host does not order (kernels on "
                                 f"streams, copies, sets, host accesses of managed and pinned memory) are not checked "
                                 f"on the gpu backend unless asked (--gpu-streams, or gpu_streams = true in "
                                 f"hirace.toml: it waits for every launch); the cpu backend checks them "
                                 f"(HIRACE_BACKEND=cpu)")
        # (a program the stream relation follows: its launches' footprints need every global access checked;
        # proofs of declared shared memory's accesses stay)
        facts = FactTable(prog, self.config.quiet_reads, global_proofs=not self.streams)
        self.facts.append(facts)
        # a kernel whose every shared-memory site is quiet never checks a shared word whole where the
        # quiet sites' launch conditions hold: its entry then leaves the shared shadow as it is
        # (kernel -> the quiet sites' conditions by their text; None once a site may check one whole)
        shadow_free: dict[str, dict[str, Condition] | None] = {k.name: {} for k in prog.kernels}
        # what each kernel's sites need of a launch for its quiet version (hirace/proofs/quiet_version.py)
        needs = {k.name: quiet_version.KernelSites() for k in prog.kernels}
        self._own_variables(facts, plan, needs)
        bases = _launch_bases(facts, plan)
        proved_calls = _context_calls(facts, plan)
        _atomic_calls(facts, plan)
        # allocations (cudaMalloc ...) are tracked by the macros of these headers (C sources never
        # get here: the pipeline builds them as they are)
        host_only = unit.language == "host"
        # (a host-only source may include a header another source's instrumentation changed; Thrust
        # declares a function named cudaMallocManaged, which must come before the hooks' macros)
        first = "#include <thrust/system/cuda/memory_resource.h>\n" if any(
            lib == "Thrust" for lib, _, _ in unit.library_includes) else ""
        plan.add_prelude(unit.main, first + ('#include "hirace/host_hooks.h"\n#include "hirace/host_checks.h"'
                                             if host_only else '#include "hirace/host.h"'))
        constexpr = {f.name for f in prog.definitions if f.is_constexpr and f.kind != "global"}
        for name in sorted(constexpr & reach & {a.function for a in prog.accesses}):
            plan.warnings.append(f"{prog.functions[name].span.where()}: the accesses of constexpr function '{name}' "
                                 f"are not checked (a check cannot run in a constant expression)")
        # code no reading of the unit saw (frontend/device_view.py)
        plan.warnings += device_view.unseen(prog, reach, "accesses written only there are not checked")
        plan.warnings += _unfollowed_waits(prog, reach)
        site_at: dict[tuple[str, int, int], int] = {}   # each access's site id, by where it is
        for a in prog.accesses:
            if a.function not in reach or a.space in ("constant", "local") or a.base in ignore or a.function in constexpr:
                continue
            if facts.through_constant(a):   # (a read of __constant__ memory through a local pointer: as the variable's)
                continue
            if monitor and a.base not in monitor:
                continue
            hd = getattr(prog.functions.get(a.function), "kind", "") == "host_device"
            proof = rules.decide(a, facts, hd)
            if memory and a.volatile and a.form == "lvalue":   # a strong access: a flag's load or store
                proof = whole(("hd_v" if hd else "v") + rules.ENTRY[a.kind],
                              "a volatile access: strong, a flag's load or store (synchronisation through memory)")
            sid = self._site(a.span, a.kind, a.text, a.function, a.base, a.space, a.bound, proof)
            site_at[(a.span.file, a.span.start, a.span.end)] = sid
            _note_shadow_use(shadow_free, a, proof, facts.kept_params)
            if a.function in needs:
                needs[a.function].site(proof, a.span)
            extra = _bounds(a, src, bases)
            if proof.rule in rules.PARAM_RULES:
                extra = f", {_base_of(bases, a.span, a.base)}, {proof.bit}u" + (f", {proof.own_var}" if proof.own_var else "")
            elif proof.rule is Rule.CALL_CONTEXT:
                extra = f", {QUIET_PARAM}"
            texts = [_check_text(proof, self._sid(sid), extra, a.form == "address", ns) for ns in (_NS, _Q)]
            if plan.wrap(a.span, *texts[0], f"hirace check of {a.text}", allow_macro=unit.editable_argument(a.span),
                         quiet=None if proof.whole else texts[1]):
                # the largest power of two that divides every access size: a 3-byte or 6-byte
                # element must not share a shadow word with its neighbour; an access whose size
                # depends on a template argument may be a byte, so it makes the granularity 1; nor
                # wider than its alignment (a packed record's member: buffer_widths.width_of)
                self.min_size = min(self.min_size, buffer_widths.width_of(a.size, a.align))
                self.bounds_only += not proof.whole
        for at in prog.atomics:
            if at.function not in reach or at.address is None:
                continue
            text = src(at.span.file).text(at.span.start, at.span.end)
            base = src(at.bound_base.file).text(at.bound_base.start, at.bound_base.end) if at.bound_base else ""
            proof = rules.decide_atomic(at, facts)
            if memory:   # a flag's read-modify-write: checked whole, with its hook
                proof = whole("strong_block" if at.scope == "block" else "strong_device",
                              "an atomic: strong, a flag's read-modify-write (synchronisation through memory)")
            sid = self._site(at.span, "atomic", text, at.function, base, "pointer", at.bound, proof)
            named = facts.atomic_name(at)
            if proof.whole and at.function in shadow_free and named not in facts.kept_params[at.function]:
                shadow_free[at.function] = None   # an atomic that may be on shared memory, checked whole
            if at.function in needs:
                needs[at.function].site(proof, at.span)
            extra = f", {_base_of(bases, at.span, named)}, {proof.bit}u" if proof.rule is Rule.ATOMIC_PARAM else \
                _bounds(at, src, bases)
            if proof.rule is Rule.ATOMIC_CALL:   # (the array its call passes: shared_calls.py)
                param = facts.atomic_ctx_sites[(at.span.file, at.span.start, at.span.end)]
                extra = f", {IN_PREFIX}{param}, {SIZE_PREFIX}{param}"
            if memory:   # on the GPU the record's lock is held until the atomic happened (strong_done)
                held = plan.wrap(at.span, f"{_NS}strong_done(", ")", f"hirace record of {at.name}",
                                 allow_macro=unit.editable_argument(at.span))
                extra = f", {atomic_how(at) | (MEMORY_HOW['held'] if held else 0)}u" + extra
            texts = [_check_text(proof, self._sid(sid), extra, True, ns) for ns in (_NS, _Q)]
            if plan.wrap(at.address, *texts[0], f"hirace check of {at.name}", allow_macro=unit.editable_argument(at.address),
                         quiet=None if proof.whole else texts[1]):
                self.bounds_only += not proof.whole
        quiet_callees = self._context_versions(prog, plan, proved_calls, site_at, needs)
        self._plan_ranges(prog, plan, reach)
        self._plan_lib_atomics(prog, plan, reach, needs, shadow_free, memory)
        self._plan_collectives(prog, plan, reach, needs, shadow_free)
        fenced = self._plan_fences(prog, plan, reach, needs) if memory else set()
        touching = _touching(prog, reach, fenced)
        # each kernel starts by clearing its block's clocks and shared shadow where the launch keeps
        # them in shared memory; a launch may ask for that area only when every kernel of its
        # name has this entry and the launch's shared-memory argument can be extended
        entered: dict[str, bool] = {}
        for k in prog.kernels if self.shared_area else ():
            ok = self._enter(prog, plan, k, shadow_free.get(k.name), touching)
            entered[k.name] = entered.get(k.name, True) and ok
        for b in prog.barriers:
            if b.function not in reach:
                continue
            # a sync that may take part of a warp: lane groups (fsm.py)
            self.lane_groups |= b.mask is not None or b.scope == "group" or (b.scope == "warp" and b.name != "__syncwarp")
            self.grid_syncs |= b.scope == "grid"
            if b.mask is not None and plan.wrap(b.mask, f"{_NS}warp_mask(", ")", f"hirace {b.name} mask",
                                                quiet=(f"{_Q}warp_mask(", ")")):
                # __syncwarp(mask): the whole warp's or part of it, as the argument says at run time
                hook = [("(", f", {ns}after_warp_mask())") for ns in (_NS, _Q)]
            elif b.mask is not None:   # (a mask hirace cannot read: as a sync of lanes apart)
                hook = [("(", f", {ns}after_group_barrier(1, false))") for ns in (_NS, _Q)]
            elif b.scope in ("warp", "group") and b.group is not None:
                group = src(b.group.file).text(b.group.start, b.group.end)
                # a thread_group holds an aligned tile unless the unit makes coalesced groups
                aligned = b.lanes == "tile" or (b.lanes == "dynamic" and not prog.coalesced_groups)
                hook = [("(", f", {ns}after_group_barrier(({group}).size(), {str(aligned).lower()}))")
                        for ns in (_NS, _Q)]
            elif b.scope == "group" or (b.scope == "warp" and b.name != "__syncwarp"):
                # a group hirace cannot name: as a sync of lanes apart (no race missed)
                hook = [("(", f", {ns}after_group_barrier(1, false))") for ns in (_NS, _Q)]
            elif b.scope == "warp":
                hook = [("(", f", {ns}after_warp_barrier())") for ns in (_NS, _Q)]
            elif b.scope == "grid":
                hook = [("(", f", {ns}after_grid_barrier())") for ns in (_NS, _Q)]
            elif b.name in ("__syncthreads", GROUP_SYNC["block"]):
                hook = [("(", f", {ns}after_block_barrier())") for ns in (_NS, _Q)]
                if memory:   # the barrier completes acquires and is a fence of block scope: as each thread arrives
                    hook[0] = (f"({_NS}before_block_barrier(), ", hook[0][1])
            else:
                hook = [(f"{ns}after_block_barrier_value(", ")") for ns in (_NS, _Q)]
                if memory:
                    hook[0] = (f"({_NS}before_block_barrier(), {_NS}after_block_barrier_value(", "))")
            plan.wrap(b.span, *hook[0], f"hirace {b.name} clock", quiet=hook[1])
        # kernels whose every site is quiet get a quiet version
        versions = {}
        for k in prog.kernels:
            called = sorted(prog.calls.get(k.name, set()) & touching - quiet_callees.get(k.name, set()))
            v = (quiet_version.NoVersion(f"it calls {called[0]}, whose code is checked") if called and needs[k.name].quiet
                 else quiet_version.plan_version(prog, plan, k, needs[k.name], self.lower_cpu,
                                                 quiet_version.open_loop_versions(self.config)))
            self.quiet_versions.setdefault((k.span.file, k.span.line, k.name), {"why": v.why if not v else "", "launches": []})
            if v:
                versions[k.name] = v
        widths = buffer_widths.kernel_widths(prog, facts.kernel_facts) if self.per_buffer() else {}
        self._plan_kernel_entries(prog, plan, facts, versions, entered, widths)
        for ls in prog.launches:
            s = src(ls.span.file)
            cfg = [one_line(s.text(x.start, x.end)) for x in ls.config_args]
            cfg += ["0"] * (4 - len(cfg))   # shared memory and stream default to 0
            callee = s.text(ls.callee.start, ls.callee.end)
            kptr = "nullptr" if ls.deduced_template else f"(const void *)({callee})"
            kname = _launched(prog, ls)   # (None: which of the unit's kernels it runs is not known)
            area = self.shared_area and entered.get(kname, False) and self._extend_shared(ls, plan)
            through_pointer = pointer_launches.is_pointer_launch(prog, ls)
            # (through a pointer: the area where the kernel it points to registered itself as entered)
            area_text = "true" if area else "false"
            if self.shared_area and through_pointer and self._extend_shared(ls, plan):
                area_text = f"::hirace::host::pointer_area({callee.strip()})"
            quiet_args = _quiet_args(ls, s, facts.launch_params(kname), unit) if kname else ""
            # (on the gpu backend only where the kernel is entered: a version asks for no area)
            # (on the gpu backend, in a program that uses streams, the version's launch passes its stream through
            # launch_stream as the kernel's does: _stream_launch)
            vcfg = cfg if not self.streams or self.lower_cpu or cfg[3].strip() in _ZERO_STREAMS else \
                [*cfg[:3], f"::hirace::streams::launch_stream({cfg[3]})"]
            version = (self._version_launch(prog, ls, versions.get(kname), vcfg, self.lower_cpu)
                       if area or self.lower_cpu else quiet_version.NoVersion("it cannot take hirace's shared area"))
            if kname in versions:
                k = versions[kname].kernel
                self.quiet_versions[(k.span.file, k.span.line, k.name)]["launches"].append(
                    (ls.span.file, ls.span.line, "" if version else version.why))
            if not quiet_args and not version and through_pointer:
                args = _args_again(ls, s, unit, range(len(ls.args)))
                if args is not None:
                    version = pointer_launches.launch_texts(prog, ls, cfg, args, self.lower_cpu)
            if version:
                quiet_args += version[0]
            sizes = _widths_args(ls, s, widths.get(kname), unit)   # (first: the stream's hook stays next to the launch's)
            site = self._stream_launch(plan, ls.config_args[3] if len(ls.config_args) > 3 else None, cfg[3], ls.span)
            name = f'"{ls.kernel}"'
            if through_pointer:   # (reports name the kernel it points to)
                name = f"::hirace::host::kernel_name({callee.strip()}, {name})"
            if not plan.wrap(ls.span, f'({sizes}{site}{quiet_args}::hirace::host::before_launch({kptr}, {name}, '
                                      f'dim3({cfg[0]}), dim3({cfg[1]}), (size_t)({cfg[2]}), '
                                      f'{area_text}, {_in_order(cfg[3])}), ',
                             ", ::hirace::host::after_launch())", f"hirace launch of {ls.kernel}"):
                self.unbracketed.append(f"{ls.span.file}:{ls.span.line}: a launch left unbracketed")
            elif version:
                plan.wrap(ls.span, version[1], version[2], f"hirace quiet version's launch of {ls.kernel}")
        self._plan_api_launches(prog, plan)
        self._note_unbracketed(prog, reach, touching)
        # a reset frees hirace's memory with the program's: the pending launches are read back first
        for call in prog.api_calls:
            if call.name == "cudaDeviceReset":
                plan.wrap(call.span, "(::hirace::host::before_reset(), ", ")", "hirace read-back before reset")
        regs = []
        # every variable the unit defines, in its own file or in a header of the program's (a counter that
        # threadFenceReduction's kernel header defines): registered at the end of the unit's file
        for g in prog.globals:
            if g.space in ("device", "managed") and g.name not in ignore:
                where = g.span.file.replace("\\", "\\\\").replace('"', '\\"')
                ref = g.qualified or g.name
                tag = "ns_" + "_".join(filter(None, ref.split("::"))) if g.qualified else g.name
                regs.append(f'static ::hirace::host::SymbolRegistrar hirace_symbol_{tag}('
                            f'+[]() -> void * {{ void *p = nullptr; cudaGetSymbolAddress(&p, {ref}); '
                            f'return p; }}, sizeof({ref}), "{g.name}", "{where}", {g.span.line}u);')
                if g.space == "managed" and self.streams:   # (its host accesses watched: host_access.h)
                    regs.append(f"static ::hirace::access::ManagedVar hirace_managed_{tag}(&{ref});")
        if regs:
            data = src(unit.main).data
            plan.insert(_end_span(unit.main, data), len(data), "\n" + " ".join(regs) + "\n",
                        "hirace registration of __device__ variables", allow_macro=True)
        if self.unit_mode and not host_only:
            self._register_unit(prog, plan)

    def _plan_fences(self, prog: Program, plan: EditPlan, reach: set[str], needs: dict) -> set[str]:
        """Fences, in a unit that follows synchronisation through memory: the hook after each (its
        acquire, its position in the thread's program order: memory_sync_hooks.h after_fence),
        `__threadfence()` -> `(__threadfence(), ::hirace::after_fence(20u))`. The functions hooked."""
        hooked = set()
        for f in prog.fences:
            if f.function not in reach or f.order == "relaxed":
                continue
            if plan.wrap(f.span, "(", f", {_NS}after_fence({fence_how(f.scope, f.order)}u))", f"hirace hook of {f.name}",
                         allow_macro=prog.unit.editable_argument(f.span)):
                hooked.add(f.function)
                if f.function in needs:
                    needs[f.function].loud(f.span)
            else:
                plan.warnings.append(f"{f.span.where()}: this {f.name} is not followed (hirace could not hook it): "
                                     f"what it orders may be reported as a race")
        return hooked

    def _plan_lib_atomics(self, prog: Program, plan: EditPlan, reach: set[str], needs: dict,
                          shadow_free: dict, memory: bool = False) -> None:
        """Operations of libcu++ atomics: an atomic access of the atomic's scope at its address, checked
        whole: `r.fetch_add(1)` -> `::hirace::lib_block_ref(r, 4u).fetch_add(1)` on an atomic_ref,
        `flag.load()` -> `(*::hirace::lib_device(&(flag), 5u)).load()` on an atomic, `p->load()` ->
        `::hirace::lib_device(p, 6u)->load()` (library_checks.h)."""
        src = prog.unit.source
        for la in prog.lib_atomics:
            if la.function not in reach:
                continue
            text = src(la.span.file).text(la.span.start, la.span.end)
            kind = {"read": "rd", "write": "wr", "rmw": "rmw"}[la.use] if la.scope == "thread" else la.scope
            sid = self._sid(self._site(la.span, la.use if la.scope == "thread" else "atomic", text, la.function,
                                       "", "pointer", proof=whole(f"lib_{kind}", "an operation of a libcu++ atomic "
                                                                                "(no rule reads them)")))
            fn = f"::hirace::lib_{kind}"
            after = ""
            if memory and la.scope != "thread":   # a strong access with the fences its order implies
                fn, after = "::hirace::lib_sync", f", {lib_atomic_how(la)}u"
            head, tail = {"ref": (f"{fn}_ref(", f", {sid}{after})"), "pointer": (f"{fn}(", f", {sid}{after})"),
                          "object": (f"(*{fn}(&(", f"), {sid}{after}))")}[la.form]
            if plan.wrap(la.span, head, tail, f"hirace check of {la.name}",
                         allow_macro=prog.unit.editable_argument(la.span)):
                shadow_free[la.function] = None   # (it may be on shared memory)
                if la.function in needs:
                    needs[la.function].loud(la.span)

    def _stream_launch(self, plan: EditPlan, stream, text: str, span, allow_macro: bool = False) -> str:
        """On the gpu backend, in a program that uses streams: the text that says where a launch is, put before
        its bracket, with its stream argument passed through `launch_stream` (hirace/host_stream_launches.h: the
        launch becomes an operation of that stream once it ran); else nothing."""
        if not self.streams or self.lower_cpu:
            return ""
        if stream is not None and text.strip() in _ZERO_STREAMS:
            stream = None   # (the default stream, as a launch that names none: launch_site says so)
        if stream is not None and not plan.wrap(stream, "::hirace::streams::launch_stream(", ")",
                                                "hirace stream of a launch", allow_macro=allow_macro):
            plan.warnings.append(f"{span.file}:{span.line}: hirace cannot follow the stream this launch names (in a "
                                 f"macro): it is taken as the default stream's operation")
        return "::hirace::streams::launch_site(__FILE__, __LINE__), "

    def _plan_api_launches(self, prog: Program, plan: EditPlan) -> None:
        """Launches through the runtime API, bracketed as `<<<...>>>` ones are (without hirace's shared
        area): `cudaLaunchCooperativeKernel((void *)k, g, b, args)` ->
        `(::hirace::host::before_launch((const void *)((void *)k), "k", dim3(g), dim3(b), (size_t)(0), false,
        ...), ::hirace::host::launched(cudaLaunchCooperativeKernel((void *)k, g, b, args)))`."""
        graphs = [c for c in prog.api_calls if c.name in ("cudaGraphAddKernelNode", "cudaStreamBeginCapture",
                                                           "cudaStreamBeginCaptureToGraph")]
        if graphs and not self.streams:   # (a graph's kernels run in brackets: host_graphs.h, host_graphs_gpu.h)
            plan.warnings.append(f"{graphs[0].span.where()}: the kernels CUDA graphs run are not checked (a graph "
                                 f"launches them outside hirace's brackets; a captured launch is counted at exit)")
        for la in api_launches(prog):
            site = self._stream_launch(plan, la.call.args[5] if len(la.call.args) > 5 else None, la.stream,
                                       la.call.span, la.call.span.in_macro_arg)
            if not plan.wrap(la.call.span, f'({site}::hirace::host::before_launch((const void *)({la.func}), "{la.kernel}", '
                                           f'dim3({la.grid}), dim3({la.block}), (size_t)({la.shmem}), false, '
                                           f'{_in_order(la.stream)}, {str(la.cooperative).lower()}'
                                           f'), ::hirace::host::launched(', "))",
                             f"hirace launch of {la.kernel} through {la.call.name}",
                             # (inside one argument of a macro, checkCudaErrors(cudaLaunchKernel(...)), the
                             # edit goes where the macro puts that argument)
                             allow_macro=la.call.span.in_macro_arg):
                self.unbracketed.append(f"{la.call.span.file}:{la.call.span.line}: a launch left unbracketed")

    def _plan_collectives(self, prog: Program, plan: EditPlan, reach: set[str], needs: dict,
                          shadow_free: dict) -> None:
        """Calls of CUB's block primitives use their TempStorage as the library does: a write of it
        before the block synchronises inside the call, reads after; reusing it without the
        __syncthreads CUB documents between two uses then races (library_checks.h Collective):
        `BR(tmp).Sum(v)` -> `(::hirace::Collective(&(tmp), sizeof(tmp), 7u), BR(tmp).Sum(v))`."""
        src = prog.unit.source
        text = lambda sp: src(sp.file).text(sp.start, sp.end).strip()   # noqa: E731
        uses = [u for u in prog.library_uses if u[0] in ("CUB", "Thrust")]
        if uses:
            plan.warnings.append(f"{uses[0][2].where()}: what CUB and Thrust do inside the library is not checked "
                                 f"(the kernels their device-wide algorithms launch, the accesses block primitives "
                                 f"make to your arrays, and any access to memory Thrust allocates, such as a "
                                 f"device_vector's); the TempStorage of CUB's block primitives is")
        for co in prog.collectives:
            if co.function not in reach:
                continue
            why = "it works warp by warp" if co.level == "warp" else \
                "it uses the library's own storage" if co.storage is None else \
                "its TempStorage is an expression hirace cannot evaluate again" if not _again(text(co.storage)) else ""
            if why:
                self.skipped.append(f"{co.span.where()}: cub::{co.cls}")
                plan.warnings.append(f"{co.span.where()}: the TempStorage of this cub::{co.cls} call is not "
                                     f"checked ({why})")
                continue
            storage = text(co.storage)
            sid = self._sid(self._site(co.span, "write", f"cub::{co.cls} on {storage}", co.function, "", "pointer",
                                       proof=whole("Collective", "the TempStorage a CUB block primitive uses")))
            if plan.wrap(co.span, f"(::hirace::Collective(&({storage}), sizeof({storage}), {sid}), ", ")",
                         f"hirace check of cub::{co.cls}'s TempStorage"):
                shadow_free[co.function] = None
                if co.function in needs:
                    needs[co.function].loud(co.span)

    def _context_versions(self, prog: Program, plan: EditPlan, proved: dict, site_at: dict,
                          needs: dict) -> dict[str, set[str]]:
        """What a kernel's quiet version makes of its proved context calls (_context_calls): it passes
        `true` (the proofs' conditions are the version's launch conditions, in its host test), and each
        reference argument into a shared array has its bounds tested at the call, as the version's own
        sites do (`(*::hirace::q::rmw_apart(__hirace_journal, &(s_key[pos]), 7u, s_key, sizeof(s_key),
        false))`, the site of the function's first access through the parameter it is bound to: where the
        check would report it). Gives, by kernel, the context functions whose every call in it is so."""
        kernel_of = lambda f, at: next((k for k in prog.kernels if k.body.file == f and k.body.start <= at < k.body.end), None)  # noqa: E731
        first: dict[tuple[str, str], object] = {}   # (function, parameter) -> its first access
        for a in sorted(prog.accesses, key=lambda a: a.span.start):
            first.setdefault((a.function, a.base), a)
        done: dict[tuple[str, int, str], tuple] = {}   # (kernel body, function) -> (kernel, its calls so made)
        for (f, start, end), call in sorted(proved.items(), key=lambda kv: kv[0]):
            k = kernel_of(f, start)
            if k is None or k.name not in needs:
                continue
            wraps = []
            for arg, size in zip(call.args, call.sizes):
                through = first.get((call.function, arg.param))
                if arg.array is None or through is None:   # (a local, or a parameter the function never names)
                    continue
                sid = site_at.get((through.span.file, through.span.start, through.span.end))
                if sid is None:
                    break
                entry = "rd_apart" if arg.kind == "read" else "rmw_apart"
                wraps.append((arg, f"(*{_Q}{entry}(__hirace_journal, &(", f"), {self._sid(sid)}, {arg.array}, {size}, false))"))
            else:
                if all(plan.wrap(arg.span, "", "", f"hirace version's bounds of {arg.text}", quiet=(qb, qa))
                       for arg, qb, qa in wraps):
                    for c in call.launch:
                        needs[k.name].conditions[c.device()] = c
                    needs[k.name].spans.extend(arg.span for arg in call.args)
                    key = (k.body.file, k.body.start, call.function)
                    done[key] = (k, done.get(key, (k, 0))[1] + 1)
        out: dict[str, set[str]] = {}
        for (_, _, fn), (k, n) in done.items():
            cur = prog.cursors.get((k.body.file, k.body.start))
            # (every call of it there, a macro's expansion's too, in the kernel's syntax tree)
            calls = sum(1 for c in cur.walk_preorder() if c.kind.name == "CALL_EXPR" and c.spelling == fn) \
                if cur is not None else -1
            if calls == n:
                out.setdefault(k.name, set()).add(fn)
        return out

    def _plan_ranges(self, prog: Program, plan: EditPlan, reach: set[str]) -> None:
        """memcpy/memmove/memset in device code: the bytes they read and write are checked as accesses
        of that many bytes, by the size argument (evaluated once): `memcpy(d, s, n)` ->
        `memcpy(d, s, ::hirace::copy_range(d, s, n, 7u, 8u))`; out of bounds, nothing is copied."""
        src = prog.unit.source
        text = lambda sp: src(sp.file).text(sp.start, sp.end).strip()   # noqa: E731
        for r in prog.ranges:
            if r.function not in reach:
                continue
            addrs = [r.dst] + ([r.src] if r.src else [])
            if not all(_again(text(a)) for a in addrs):
                self.skipped.append(f"{r.span.where()}: {r.name} whose addresses cannot be evaluated again")
                plan.warnings.append(f"{r.span.where()}: the bytes this {r.name} touches are not checked (its "
                                     f"address arguments are expressions hirace cannot evaluate twice)")
                continue
            ranged = whole("copy_range", f"the bytes a device {r.name} touches")
            dsite = self._site(r.dst, "write", text(r.dst), r.function, r.dst_base, "pointer", proof=ranged)
            if r.src is None:
                call = f"::hirace::set_range({text(r.dst)}, "
                tail = f", {self._sid(dsite)})"
            else:
                ssite = self._site(r.src, "read", text(r.src), r.function, r.src_base, "pointer", proof=ranged)
                call = f"::hirace::copy_range({text(r.dst)}, {text(r.src)}, "
                tail = f", {self._sid(dsite)}, {self._sid(ssite)})"
            if plan.wrap(r.size, call, tail, f"hirace check of {r.name}'s bytes"):
                self.min_size = 1   # (a range may start at any byte)

    def _plan_kernel_entries(self, prog: Program, plan: EditPlan, facts: FactTable, versions: dict,
                             entered: dict, widths: dict) -> None:
        """Each kernel's quiet parameters, buffer widths and version, registered by its address for
        launches through a kernel pointer (pointer_launches.py), right after its definition (and its
        version's)."""
        for k in prog.kernels:
            found = facts.launch_params(k.name)
            v = versions.get(k.name) if self.lower_cpu or entered.get(k.name, False) else None
            w = widths.get(k.name)
            text = pointer_launches.entry_text(
                prog, k, lambda args, f=found, w=w: (_quiet_params_text(f[0], args) if len(f) == 1 else "") +
                (w.text(args) if w is not None else ""), v, self.shared_area and entered.get(k.name, False))
            if text is None:
                continue
            after = quiet_version.after_definition(prog, k)   # (in the kernel's own scope)
            if after is not None:
                plan.insert(k.span, after, text, f"hirace kernel entry of {k.name}", order=(0,))

    @staticmethod
    def _version_launch(prog: Program, ls, v, cfg: list[str], lower_cpu: bool):
        """The texts that let launch `ls` run its kernel's quiet version `v` (quiet_version.launch_text),
        or None where the kernel has none, or why the launch cannot run it (quiet_version.NoVersion): a
        template's arguments deduced, the version not declared here, or the arguments its test takes
        cannot be evaluated once more (as for quiet_params)."""
        NoVersion = quiet_version.NoVersion
        if v is None:
            return None
        if ls.deduced_template:
            return NoVersion("its template arguments are deduced")
        if len(ls.args) != len(v.kernel.params):
            return NoVersion("it leaves default arguments out")
        s = prog.unit.source(ls.span.file)
        named = quiet_version.template_arguments(v, one_line(s.text(ls.callee.start, ls.callee.end)))
        if not named:
            return named
        if not quiet_version.visible_at(prog, v.kernel, ls):
            return NoVersion("the version is not declared where it is")
        args = [one_line(s.text(x.start, x.end)).strip() for x in ls.args]
        for i in v.test_params:
            x, text = ls.args[i], args[i]
            if not _plain_arg(x, text, prog.unit):
                return NoVersion(f"its argument '{text}' cannot be evaluated again for the version's test")
        return quiet_version.launch_text(v, named[0], cfg, args, lower_cpu, named[1])

    @staticmethod
    def _extend_shared(ls, plan: EditPlan) -> bool:
        """The launch's dynamic shared memory plus hirace's area: `<<<g, b, n>>>` ->
        `<<<g, b, ::hirace::host::launch_shared_bytes(n)>>>` (`(0)` added where none is given)."""
        args = ls.config_args
        if len(args) >= 3:
            return plan.wrap(args[2], "::hirace::host::launch_shared_bytes(", ")",
                             f"hirace shared memory of {ls.kernel}")
        if len(args) == 2:
            # after the block argument, also where it is a macro (`<<<g, TILE>>>`): an insertion after a
            # whole expansion leaves it whole; one inside an expansion (`<<<CONFIG>>>`) is refused
            end = args[1].end
            inside = plan.unit is not None and any(
                m.span.start < end < m.span.end for m in plan.unit.macro_expansions.get(args[1].file, ()))
            return not inside and plan.insert(args[1], end, ", ::hirace::host::launch_shared_bytes(0)",
                                              f"hirace shared memory of {ls.kernel}", allow_macro=True)
        return False

    def _enter(self, prog: Program, plan: EditPlan, k, conds: dict[str, Condition] | None,
               touching: set[str]) -> bool:
        """Insert the kernel's `block_entry`: at its start, or, where no shared word of the kernel is
        checked whole (`conds`: the quiet sites' launch conditions; None: some site checks one), after
        its shared arrays' declarations, with those conditions (they may name the arrays)."""
        start = k.body.start + 1
        if conds is not None and not (prog.calls.get(k.name, set()) & touching):
            decls = [d.stmt for d in prog.shared if d.function == k.name and d.stmt is not None]
            at = max((d.end for d in decls), default=start)
            head = prog.unit.source(k.body.file).text(start, at)
            nested = _block_depth(head) != 0 or re.search(r"\breturn\b", head) is not None
            early = any(x.span.file == k.body.file and start <= x.span.start < at
                        for x in [*prog.accesses, *prog.atomics, *prog.barriers])
            if not nested and not early and len(decls) == len([d for d in prog.shared if d.function == k.name]):
                text = [" && ".join(conds[c].device(ns) for c in sorted(conds)) or "true" for ns in (_NS, _Q)]
                if plan.insert(k.body, at, f" ::hirace::block_entry({text[0]});", f"hirace entry of {k.name}",
                               quiet=f" {_Q}block_entry({text[1]});"):
                    return True
        return plan.insert(k.body, start, " ::hirace::block_entry();", f"hirace entry of {k.name}",
                           quiet=f" {_Q}block_entry();")

    def write_sites(self, path: Path) -> None:
        site_table.write(self.sites, path)


def _again(expr: str) -> bool:
    """Can `expr` be evaluated once more without changing the program: no call but sizeof (a cast's
    parentheses are no call), no assignment, increment or decrement?"""
    if "++" in expr or "--" in expr or re.search(r"(?<![=!<>])=(?!=)", expr):
        return False
    return all(m.group(1) in ("sizeof", "alignof") for m in re.finditer(r"\b(\w+)\s*\(", expr)) and \
        not re.search(r"[)\]]\s*\(", expr)


def _unfollowed_waits(prog: Program, reach: set[str]) -> list[str]:
    """Device code that waits in a libcu++ waiting object (cuda::barrier's arrive/wait, a latch, a
    semaphore, a pipeline): the orderings it makes are not followed, so a race reported between
    accesses it orders is not there; said once per function, at its first use."""
    out, seen = [], set()
    for _library, name, span, fn in sorted(prog.library_uses, key=lambda u: (u[2].file, u[2].start)):
        if fn in reach and fn not in seen and name.split("::")[-1] in WAITING_OBJECTS:
            seen.add(fn)
            out.append(f"{span.where()}: {fn} synchronises through {name}, whose arrive and wait hirace does "
                       f"not follow: a race reported between accesses it orders is not there (docs/limitations.md)")
    return out


_NS, _Q = "::hirace::", "::hirace::q::"   # the runtime's namespace, and its quiet versions' (quiet_version.h q)


def _check_text(proof: Proof, sid: str, extra: str, address: bool, ns: str) -> tuple[str, str]:
    """The text around an access (or an atomic's address) for its check: `(*::hirace::rd(&(a[i]), 7u, a))`;
    in namespace `ns` (a quiet version's calls take the thread's journal first)."""
    if ns == _Q and proof.inside is not None and not address:   # (the version runs where it holds)
        return f"(*{_Q}inside(&(", f"), {sid}))"
    call = f"{ns}{proof.entry}(" + ("__hirace_journal, " if ns == _Q else "")
    if proof.condition_at_site is not None:
        extra += f", {proof.condition_at_site.device(ns)}"
    if address:
        return call, f", {sid}{extra})"
    return f"(*{call}&(", f"), {sid}{extra}))"


def _note_shadow_use(shadow_free: dict, a, proof: Proof, kept_params: dict) -> None:
    """Note in `shadow_free` (kernel -> the launch conditions of its quiet shared sites, None once
    a site may check a shared word whole) what the kernel's access `a`, checked as `proof` says,
    needs; `kept_params`: each kernel's parameters it never assigns."""
    conds = shadow_free.get(a.function)
    if conds is None:
        return
    if a.space == "shared":
        if proof.rule not in rules.SHARED_RULES:
            shadow_free[a.function] = None
        elif proof.condition_at_site is not None:
            conds[proof.condition_at_site.device()] = proof.condition_at_site
    elif a.space == "pointer" and a.base not in kept_params[a.function]:
        shadow_free[a.function] = None   # (a pointer that is not a kernel parameter may be shared)


def _block_depth(text: str) -> int:
    """How many braces `text` leaves open."""
    return text.count("{") - text.count("}")


def _touching(prog: Program, reach: set[str], fenced: set[str] = frozenset()) -> set[str]:
    """The device functions whose code reads hirace's launch state (an instrumented access, atomic,
    barrier, or a hooked fence: `fenced`), or that call one that does."""
    touching = {x.function for x in [*prog.accesses, *prog.atomics, *prog.barriers] if x.function in reach}
    touching |= fenced & reach
    grew = True
    while grew:
        grew = False
        for name in reach - touching:
            if prog.calls.get(name, set()) & touching:
                touching.add(name)
                grew = True
    return touching


def _launched(prog: Program, ls) -> str | None:
    """The name of the kernel launch `ls` runs, where that is the unit's one kernel of that name and the
    launch resolves to its definition; else None (a kernel pointer, a kernel this unit only declares, one
    of two namespaces' kernels of one name): what the planner knows of a kernel by name is not this one's."""
    d = ls.definition
    if d is None:
        return None
    mine = [k for k in prog.kernels if k.name == ls.kernel]
    ok = len(mine) == 1 and (mine[0].span.file, mine[0].span.start) == (d.file, d.start)
    return ls.kernel if ok else None


def _quiet_args(ls, s, found, unit) -> str:
    """`::hirace::host::quiet_params({read-only args}, {written args}), ` for a launch of a kernel
    whose writes are known (with read-only parameters or not), when its arguments can be evaluated once
    more (no call, assignment, increment, nor macro, which may hide one); else ''."""
    kernels = {(kp.kernel.body.file, kp.kernel.body.start) for kp in found}
    if len(kernels) != 1 or len(found[0].kernel.params) != len(ls.args):
        return ""
    kp = found[0]
    args = _args_again(ls, s, unit, kp.bits + kp.written + kp.pointers)
    return "" if args is None else _quiet_params_text(kp, args)


def _widths_args(ls, s, w, unit) -> str:
    """`::hirace::host::buffer_widths(...), ` for a launch of a kernel whose widths `w` the planner
    knows (buffer_widths.py), when the arguments it names can be evaluated once more; else ''."""
    if w is None:
        return ""
    named = [i for i, _ in w.params] + list(w.pointee)
    args = _args_again(ls, s, unit, named) if all(i < len(ls.args) for i in named) else None
    return "" if args is None else w.text(args, w.kernel(s.text(ls.callee.start, ls.callee.end).strip(),
                                                         ls.deduced_template))


def _args_again(ls, s, unit, positions) -> list[str] | None:
    """Launch `ls`'s argument texts, where those at `positions` can be evaluated once more (_plain_arg);
    else None."""
    args = [one_line(s.text(x.start, x.end)).strip() for x in ls.args]
    return args if all(_plain_arg(ls.args[i], args[i], unit) for i in positions) else None


def _plain_arg(x, text: str, unit) -> bool:
    """Can a launch's argument be evaluated once more (no call, assignment, increment, nor macro but
    those whose expansion has none: `MIN(a, b - t)`, parse.py _pure_macro)? A parenthesis after a name,
    `)`, `]` or `>` is a call (`f(x)`, `(*f)(x)`, `tab[0](x)`), or a cast whose operand is in parentheses
    (`(char *)(p + 1)`: refused too)."""
    macros = [m for m in unit.macro_expansions.get(x.file, ()) if m.span.start < x.end and x.start < m.span.end]
    if any(m.name not in unit.pure_macros for m in macros):
        return False
    names = {m.name for m in macros}
    calls = [n for n in re.findall(r"([A-Za-z_]\w*)\s*\(", text) if n not in names]
    return bool(_PLAIN_ARG.fullmatch(text) or (names and _MACRO_ARG.fullmatch(text))) and not calls and \
        "++" not in text and "--" not in text and not re.search(r"[)\]>]\s*\(", text)   # (`(*f)(x)`, `tab[0](x)`: calls)


def _quiet_params_text(kp, args: list[str]) -> str:
    """`::hirace::host::quiet_params(...), ` for kernel parameters `kp` and argument texts `args` (with no
    candidates: only the written arguments, for the launch's state: hirace/host_buffer_state.h)."""
    addr = lambda ps: ", ".join(f"::hirace::host::arg_address({args[i]})" for i in ps)  # noqa: E731
    if not kp.own and not kp.atomic:
        return f"::hirace::host::quiet_params({{{addr(kp.bits)}}}, {{{addr(kp.written)}}}), "
    pairs = f", {{{', '.join(f'{r | o << 8}u' for r, o in kp.pairs)}}}" if kp.pairs else ""
    return (f"::hirace::host::quiet_params({{{addr(kp.bits)}}}, {{{addr(kp.written)}}}, "
            f"{{{addr(kp.pointers)}}}, {kp.own_mask}u{pairs}), ")


def _launch_bases(facts: FactTable, plan: EditPlan) -> dict:
    """For each kernel that moves a parameter it writes through (readonly_params.KernelWrites.moved), the
    argument as the launch passed it, copied at the kernel's entry (`auto *const __hirace_at_out = out;`):
    its accesses are bounded by the buffer that points into, which keeps the launch's writes in the buffers
    its written arguments point into. (kernel body's file, start, end) -> {parameter: its copy}; a kernel
    where the copy cannot be inserted has its writes forgotten (every buffer checked in its launches)."""
    out = {}
    for kb, kw in list(facts.writes.items()):
        if not kw.moved:
            continue
        body = kw.kernel.body
        names = {name: f"__hirace_at_{name}" for name in kw.moved}
        text = "".join(f" auto *const {var} = {name}; (void){var};" for name, var in names.items())
        if plan.insert(body, body.start + 1, text, f"hirace launch bases of {kw.kernel.name}", quiet=text):
            # (a local pointer made from one is bounded by the same copy: readonly_params.aliases)
            out[(body.file, body.start, body.end)] = names | {q: names[param] for q, param in kw.aliases}
        else:
            del facts.writes[kb]
    return out


def _context_calls(facts: FactTable, plan: EditPlan) -> dict:
    """The context functions (proofs/call_context.py) some of whose calls are proved: each gets its flag
    (`, bool __hirace_quiet = false` after its last parameter) and its accesses through references the
    flag (facts.context_sites: rules.call_context); each proved call passes its conditions
    (`, (blockDim.z == 1 && ::hirace::in_declared(...))` before its closing parenthesis; in a kernel's
    quiet version, `true`: HiracePlanner._context_versions). A function whose flag cannot be inserted
    keeps every access checked whole, and its calls as they are. Gives the calls that pass their
    conditions, by where they are."""
    out = {}
    if facts.off:
        return out
    kf = facts.kernel_facts
    calls = kf.context_calls
    for name, cf in sorted(kf.context_functions().items()):
        mine = {sp: c for sp, c in calls.items() if c.function == name}
        if not mine:
            continue
        at = Span(cf.fn.body.file, cf.insert_at, cf.insert_at, cf.fn.span.line, cf.fn.span.col)
        if not plan.insert(at, cf.insert_at, f", bool {QUIET_PARAM} = false", f"hirace quiet flag of {name}"):
            continue
        facts.context_sites |= cf.sites
        for (f, start, end), call in sorted(mine.items(), key=lambda kv: kv[0]):
            cond = " && ".join(dict.fromkeys(call.conds)) or "true"
            if plan.insert(Span(f, start, end, 0, 0), call.close, f", ({cond})", f"hirace quiet call of {name}",
                           order=(2,), quiet=", true"):
                out[(f, start, end)] = call
    return out


def _atomic_calls(facts: FactTable, plan: EditPlan) -> None:
    """The atomic functions (proofs/shared_calls.py) some of whose calls are proved, and those they call: each
    gets a declared array and its size per pointer parameter (`, const volatile void *__hirace_in_p = nullptr,
    unsigned long long __hirace_n_p = 0` after its last parameter), its atomics through p test against them
    (facts.atomic_ctx_sites: rules.atomic_call), its calls of another such function pass its own on, and each
    proved call passes its arrays (`, s_Hist, sizeof(s_Hist)` before its closing parenthesis). A function whose
    parameters cannot be inserted keeps every atomic checked whole, and its calls as they are."""
    if facts.off:
        return
    kf = facts.kernel_facts
    fns = atomic_functions(kf)
    proved = kf.atomic_calls
    need = {c.function for c in proved.values()}
    todo = list(need)
    while todo:   # (and the functions they call, which their calls pass their arrays on to)
        for _, _, g, _ in fns[todo.pop()].inner:
            if g in fns and g not in need:
                need.add(g)
                todo.append(g)
    done = set()
    for name in sorted(need):
        af = fns[name]
        at = Span(af.fn.body.file, af.insert_at, af.insert_at, af.fn.span.line, af.fn.span.col)
        if plan.insert(at, af.insert_at, af.header(), f"hirace atomic arrays of {name}"):
            done.add(name)
    for name in sorted(done):
        af = fns[name]
        facts.atomic_ctx_sites.update(af.site_param)
        for (f, start, end), close, g, moved in af.inner:
            if g in done and set(moved) == set(fns[g].params):
                text = "".join(f", {IN_PREFIX}{moved[j]}, {SIZE_PREFIX}{moved[j]}" for j in sorted(fns[g].params))
                plan.insert(Span(f, start, end, 0, 0), close, text, f"hirace atomic arrays passed to {g}", order=(2,))
    for (f, start, end), ac in sorted(proved.items()):
        if ac.function in done:
            text = "".join(f", {ac.arrays[j]}, sizeof({ac.arrays[j]})" for j in sorted(fns[ac.function].params))
            plan.insert(Span(f, start, end, 0, 0), ac.close, text, f"hirace proved call of {ac.function}", order=(2,))


def _base_of(bases: dict, span, name: str) -> str:
    """The pointer that bounds an access at `span` through `name`: a moved written parameter's launch copy
    (_launch_bases) in its kernel, else the name."""
    for (f, start, end), names in bases.items():
        if span.file == f and start <= span.start and span.end <= end and name in names:
            return names[name]
    return name


def _bounds(a, src, bases: dict | None = None) -> str:
    """The extra arguments that bound an access where its expression names the variable:
    `, a` (the buffer a points into), `, s, sizeof(s)` (a declared array), `, s, kDynamicShared`."""
    if not a.bound or a.bound_base is None:
        return ""
    name = src(a.bound_base.file).text(a.bound_base.start, a.bound_base.end)
    if a.bound == "pointer":
        return f", {_base_of(bases or {}, a.span, name.strip())}"
    if a.bound == "array":
        return f", {name}, sizeof({name})"
    return f", {name}, ::hirace::kDynamicShared"


def _c_string(text: str) -> str:
    """A C++ string literal of `text` (every byte that is not printable ASCII escaped)."""
    out = []
    for b in text.encode("utf-8", "surrogateescape"):
        ch = chr(b)
        out.append("\\" + ch if ch in '"\\' else ch if 32 <= b < 127 and ch != "?" else f"\\{b:03o}")
    return '"' + "".join(out) + '"'


def _end_span(path: str, data: bytes):
    from instrument.frontend.parse import Span
    return Span(path, len(data), len(data), data.count(b"\n") + 1, 1)
