"""The device pass's view of device code (docs/parsing.md#the-device-passs-view).

nvcc compiles a .cu file twice: its host pass reads it with __CUDA_ARCH__ undefined, its device pass
once per architecture with __CUDA_ARCH__ defined (700 for sm_70). The parser reads it as the host
pass does (parse.py); code of a kernel or device function under `#if __CUDA_ARCH__ >= 700` or
`#ifdef __CUDA_ARCH__` is then invisible. A unit with such a condition (`wanted`) is parsed a second
time as the device pass for one architecture reads it, and the two readings `merge`d: the facts of
device code (kernels, `__device__` functions) from the device pass's, those of host code from the host
pass's, both of `__host__ __device__` functions (nvcc compiles their bodies in both passes). Spans are
offsets in the same files, so edits of either reading apply to the one text.

The cpu backend compiles the unit once, with the host compiler, and __CUDA_ARCH__ undefined (the
runtimes' headers tell the emulation from a GPU by it). It builds device code as the device pass of
CPU_ARCH reads it: the lowering rewrites __CUDA_ARCH__ in the conditions whose text is device code
only (`Condition.verdict` "device", classified here from both readings) and warns by name about one
that mixes host and device code (lower_cpu.py).
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from clang import cindex

from .parse import ParsedUnit, Span
from .query import Program, attr_kind

CK = cindex.CursorKind

# a preprocessor condition on __CUDA_ARCH__ (what only one of nvcc's passes compiles)
ARCH_CONDITION = re.compile(rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|elifdef|elifndef)\b[^\n]*\b__CUDA_ARCH__\b", re.M)

# the architecture the cpu backend emulates: the device pass it builds device code as (__CUDA_ARCH__ 800)
CPU_ARCH = 80
# the device pass read for a GPU build that names no architecture on a machine without a GPU: nvcc's
# default since CUDA 13 (the oldest architecture it compiles for)
DEFAULT_GPU_ARCH = 75

DEVICE_KINDS = ("global", "device")


def wanted(unit: ParsedUnit) -> bool:
    """Does a user file of the unit hold a condition on __CUDA_ARCH__ (then only it pays a second parse)?"""
    return any(ARCH_CONDITION.search(unit.source(f).data) for f in unit.user_files)


_ARCH_NUMBER = re.compile(r"(?:sm|compute|lto)_(\d+)")


def archs_of(args: list[str]) -> list[int]:
    """The architectures a compile line's -arch/--gpu-architecture, -gencode/--generate-code and -code
    options name, in their order (`-arch=sm_90` -> [90]; `native`, `all`: none)."""
    out: list[int] = []
    wants = ("-arch", "--gpu-architecture", "-gencode", "--generate-code", "-code", "--gpu-code")
    for i, a in enumerate(args):
        name, _, value = a.partition("=")
        if name not in wants:
            continue
        if not value and i + 1 < len(args):
            value = args[i + 1]
        for n in _ARCH_NUMBER.findall(value):
            if int(n) not in out:
                out.append(int(n))
    return out


def reading_arch(lower_cpu: bool, archs=()) -> tuple[int, tuple[int, ...]]:
    """(the architecture whose device pass is read, the other ones the build compiles): the cpu
    backend's CPU_ARCH; else the first the build names (compile line, backend); else DEFAULT_GPU_ARCH."""
    if lower_cpu:
        return CPU_ARCH, ()
    archs = list(archs)
    return (archs[0], tuple(archs[1:])) if archs else (DEFAULT_GPU_ARCH, ())


# ------------------------------------------------------------------ the merge

def _definitions(prog: Program) -> list[tuple[str, str, Span, Span]]:
    """Every function definition of a reading: (kind, name, whole span, body span)."""
    out = []
    for c in prog.cursors.values():
        body = next((k for k in c.get_children() if k.kind == CK.COMPOUND_STMT), None)
        sp, bsp = prog.unit.span_of(c), (prog.unit.span_of(body) if body is not None else None)
        if sp is not None and bsp is not None:
            out.append((attr_kind(c) or "host", c.spelling, sp, bsp))
    return out


def _side(kind: str | None) -> str:
    return "device" if kind in DEVICE_KINDS else "both" if kind == "host_device" else "host"


def _key(fact) -> tuple:
    if isinstance(fact, tuple):
        return fact
    return (type(fact).__name__, fact.span, getattr(fact, "kind", None), getattr(fact, "op", None),
            getattr(fact, "name", None))


def _span_of_fact(fact) -> Span:
    return fact.span if not isinstance(fact, tuple) else next(x for x in fact if isinstance(x, Span))


def merge(host: Program, device: Program, other_archs: tuple[int, ...] = ()) -> Program:
    """One Program of the two readings: the facts of kernels and device functions from the device
    pass's reading, of host code from the host pass's, of `__host__ __device__` functions from both
    (each once), of file scope from both."""
    kinds: dict[str, str] = {}
    for f in host.definitions:
        kinds[f.name] = f.kind
    for f in device.definitions:
        kinds[f.name] = f.kind
    defs = {view: _definitions(p) for view, p in (("host", host), ("device", device))}

    def side_by_name(fn: str) -> str:
        return "both" if not fn else _side(kinds.get(fn))

    def side_by_place(sp: Span, view: str) -> str:
        inner = None
        for kind, _, _, body in defs[view]:
            if body.file == sp.file and body.start <= sp.start and sp.end <= body.end and \
                    (inner is None or body.start >= inner[1].start):
                inner = (kind, body)
        return "both" if inner is None else _side(inner[0])

    def pick(name: str, by_place: bool = False) -> list:
        out: dict = {}
        for view, want, p in (("device", ("device", "both"), device), ("host", ("host", "both"), host)):
            for fact in getattr(p, name):
                fn = fact[3] if isinstance(fact, tuple) and len(fact) == 4 else getattr(fact, "function", None)
                side = side_by_place(_span_of_fact(fact), view) if by_place or fn is None else side_by_name(fn)
                if side in want:
                    out.setdefault(_key(fact), fact)
        return list(out.values())

    unit = host.unit
    files = dict(unit.files)
    for path in device.unit.user_files - unit.user_files:   # (headers only the device pass includes)
        files[path] = device.unit.source(path)
    expansions = {f: list({(m.name, m.span): m for m in
                           unit.macro_expansions.get(f, []) + device.unit.macro_expansions.get(f, [])}.values())
                  for f in set(unit.macro_expansions) | set(device.unit.macro_expansions)}
    for ms in expansions.values():
        ms.sort(key=lambda m: m.span.start)
    merged_unit = dataclasses.replace(
        unit, files=files, user_files=unit.user_files | device.unit.user_files, macro_expansions=expansions,
        text_macros=unit.text_macros | device.unit.text_macros,
        library_includes=list(dict.fromkeys(unit.library_includes + device.unit.library_includes)),
        device_arch=device.unit.device_arch)
    prog = Program(merged_unit)
    prog.definitions = sorted(
        list(device.definitions) + [f for f in host.definitions if f.kind == "host_device" and
                                    (f.name, f.body) not in {(g.name, g.body) for g in device.definitions}],
        key=lambda f: (f.span.file, f.span.start))
    prog.functions = {n: f for n, f in host.functions.items() if f.kind == "host_device"}
    prog.functions.update(device.functions)
    for name in ("launches", "accesses", "atomics", "barriers", "fences", "branches", "loops", "api_calls",
                 "ranges", "lib_atomics", "collectives", "operators", "index_refs", "subscripts", "shared",
                 "globals", "library_uses"):
        setattr(prog, name, pick(name))
    for name in ("aliased", "special", "nested_bodies"):
        setattr(prog, name, _pick_places(name, host, device, side_by_place))
    for name in set(host.calls) | set(device.calls):
        side = side_by_name(name)
        prog.calls[name] = (device.calls.get(name, set()) if side == "device" else host.calls.get(name, set())
                            if side == "host" else host.calls.get(name, set()) | device.calls.get(name, set()))
    for key, c in device.cursors.items():
        if (attr_kind(c) or "host") != "host":
            prog.cursors[key] = c
    for key, c in host.cursors.items():
        if (attr_kind(c) or "host") == "host" or (attr_kind(c) == "host_device" and key not in prog.cursors):
            prog.cursors[key] = c
    prog.coalesced_groups = host.coalesced_groups or device.coalesced_groups
    for lst in (prog.launches, prog.accesses, prog.atomics, prog.barriers, prog.branches, prog.loops, prog.shared,
                prog.api_calls, prog.operators, prog.index_refs, prog.subscripts, prog.fences, prog.ranges,
                prog.lib_atomics, prog.collectives, prog.globals):
        lst.sort(key=lambda r: (r.span.file, r.span.start, -r.span.end))
    prog.device_arch = device.unit.device_arch
    prog.other_archs = tuple(other_archs)
    prog.arch_conditions = conditions(merged_unit, defs["host"] + defs["device"])
    return prog


def _pick_places(name: str, host: Program, device: Program, side_by_place) -> list:
    """Facts that name no function (a span, or a tuple holding one), by the function they lie in."""
    out: dict = {}
    for view, want, p in (("device", ("device", "both"), device), ("host", ("host", "both"), host)):
        for fact in getattr(p, name):
            sp = fact if isinstance(fact, Span) else _span_of_fact(fact)
            if side_by_place(sp, view) in want:
                out.setdefault(fact if isinstance(fact, (Span, tuple)) else _key(fact), fact)
    return list(out.values())


# ------------------------------------------------------------------ the conditions on __CUDA_ARCH__

@dataclass(frozen=True)
class Condition:
    """One #if ... #endif group with a condition on __CUDA_ARCH__, and what its text is:
    'device' (code of kernels and device functions only: the cpu backend builds it as the device pass
    reads it), 'host' (host code only: as the host pass reads it, as nvcc's host pass does), 'mixed'
    (both, or macros that either may use: `why` says what; built as the host pass reads it, with a
    warning), 'none' (no code)."""
    file: str
    line: int
    start: int
    end: int
    directives: tuple[Span, ...]   # its #if/#elif/#ifdef/#ifndef lines that name __CUDA_ARCH__
    verdict: str
    why: str = ""

    def where(self) -> str:
        return f"{self.file}:{self.line}"


_DIRECTIVE = re.compile(rb"[ \t]*#[ \t]*([a-z]+)")
_ARCH_NAME = re.compile(rb"\b__CUDA_ARCH__\b")


def _groups(data: bytes):
    """Each #if ... #endif group of a file: (start, end, [(kind, start, end) of its directives], other
    directives inside it: 'define' / 'include' ...)."""
    out, stack = [], []
    pos = 0
    while pos < len(data):
        end = pos
        while True:   # a logical line: backslash-newlines continue it
            nl = data.find(b"\n", end)
            nl = len(data) if nl < 0 else nl
            if nl > 0 and data[nl - 1:nl] == b"\\" and nl < len(data):
                end = nl + 1
                continue
            end = nl
            break
        m = _DIRECTIVE.match(data, pos, end)
        if m:
            kind = m.group(1).decode()
            if kind in ("if", "ifdef", "ifndef"):
                stack.append([pos, [(kind, pos, end)], set()])
            elif kind in ("elif", "else", "elifdef", "elifndef") and stack:
                stack[-1][1].append((kind, pos, end))
            elif kind == "endif" and stack:
                g = stack.pop()
                g[1].append((kind, pos, end))
                out.append((g[0], end, g[1], g[2]))
                if stack:
                    stack[-1][2] |= g[2]
            elif stack:
                for g in stack:
                    g[2].add(kind)
        pos = end + 1
    return out


def conditions(unit: ParsedUnit, defs: list[tuple[str, str, Span, Span]]) -> list[Condition]:
    """Every condition on __CUDA_ARCH__ in the unit's user files, classified by what its text holds in
    either reading (defs: both readings' function definitions, as _definitions gives them)."""
    out = []
    for path in sorted(unit.user_files):
        src = unit.source(path)
        data = src.data
        if not ARCH_CONDITION.search(data):
            continue
        for start, end, directives, others in _groups(data):
            arch = [(k, s, e) for k, s, e in directives if k not in ("else", "endif") and _ARCH_NAME.search(data, s, e)]
            if not arch:
                continue
            spans = tuple(Span(path, s, e, *src.line_col(s)) for _, s, e in arch)
            line = src.line_col(start)[0]
            verdict, why = _classify(path, start, end, others, defs)
            out.append(Condition(path, line, start, end, spans, verdict, why))
    return out


def _classify(path: str, start: int, end: int, others: set[str], defs) -> tuple[str, str]:
    around = [(k, n, body) for k, n, _, body in defs
              if body.file == path and body.start <= start and end <= body.end]
    macros = others & {"define", "undef"}
    if around:
        kind, name, _ = max(around, key=lambda d: d[2].start)
        if kind == "host":
            return "host", ""
        if kind == "host_device":
            return "mixed", f"code of __host__ __device__ function '{name}' (nvcc compiles it in both passes)"
        if macros or "include" in others:
            return "mixed", f"#{sorted(macros | (others & {'include'}))[0]} inside kernel or device function '{name}'"
        return "device", ""
    # the definitions its text holds or cuts into (one whose `template <...>` stands before the #if, one
    # with a parameter under it)
    inside = {(k, n) for k, n, whole, _ in defs if whole.file == path and whole.start < end and start < whole.end}
    kinds = {k for k, _ in inside}
    if macros:
        return "mixed", f"#{sorted(macros)[0]} (a macro host code may use too)"
    if not kinds:
        return ("host", "") if others else ("none", "")
    if kinds <= set(DEVICE_KINDS):
        return ("mixed", "#include") if "include" in others else ("device", "")
    if kinds == {"host"}:
        return "host", ""
    names = ", ".join(sorted(f"'{n}'" for k, n in inside if k not in DEVICE_KINDS))
    return "mixed", f"host code ({names}) beside device code"


# ------------------------------------------------------------------ what stays unseen

def unseen(prog: Program, functions: set[str], what: str) -> list[str]:
    """Warnings for code of `functions` (their definitions in prog) under a condition on __CUDA_ARCH__ that
    no reading gave facts of: every tool says so the same way. `what`: what the tool does not do there
    ('accesses written only there are not checked')."""
    out = []
    src = prog.unit.source
    for f in prog.definitions:
        if f.name not in functions:
            continue
        body = src(f.body.file).data[f.body.start:f.body.end]
        m = ARCH_CONDITION.search(body)
        if not m:
            continue
        line = f.body.line + body[:m.start()].count(b"\n")
        if not prog.device_arch:
            why = f" (its reading as the device pass failed: {prog.device_error})" if prog.device_error else ""
            out.append(f"{f.body.file}:{line}: code of '{f.name}' that only nvcc's device pass compiles (#if on "
                       f"__CUDA_ARCH__) is read as the host pass reads it{why}: {what}")
        elif prog.other_archs:
            others = ", ".join(f"sm_{a}" for a in prog.other_archs)
            out.append(f"{f.body.file}:{line}: code of '{f.name}' under a condition on __CUDA_ARCH__ is read as "
                       f"sm_{prog.device_arch}'s device pass reads it; the build compiles {others} too: code only "
                       f"those compile is not read: {what}")
    return out
