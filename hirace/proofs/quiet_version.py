"""Quiet versions of kernels: a second copy of a kernel whose every site is quiet, launched in its
place where the host finds every site's launch condition holding.

A quiet site (only its bounds tested inline: hirace/planner.py) falls back to the whole check, an
out-of-line call, where its test fails; that call is rarely taken, yet its presence costs the kernel
more than the tests (registers, and the program's loads and stores kept clear of it:
bench/results/hirace_speed_h100/shared_path). Where each site's launch condition holds (the block
fits the arrays, the own indices are own, the parameters are quiet), a failed test can only mean an
access out of bounds, which the check would report and divert, nothing else. The quiet version
(`K__hirace_q`) has no call at its sites: they divert such an access and note it in the thread's
journal (quiet_version.h, namespace q), logged as the thread leaves the kernel. It keeps no clocks and asks
for no shared area.

The host's test (`K__hirace_quiet_ok`) is written beside the copy with the kernel's parameters: the
launch conditions evaluated for the launch's shape and arguments (`sizeof` of a shared array as the
extent its type gives). A launch of K that may use the version becomes

    (quiet_version(K__hirace_quiet_ok(block, grid, args...), need), before_launch(...),
     (quiet_chosen() ? (void)(K__hirace_q<<<...>>>(args...)) : (void)(K<<<...>>>(args...))), after_launch())

and before_launch chooses (host_launch.h): the test holds, the parameters in `need` are quiet, the kernel is
checked and no thread filter is set. The launch's log record says which ran (`quiet`). On the cpu
backend the copy and its launch are written as the cpu lowering writes the kernel's
(instrument/frontend/lower_cpu.py): the same choice runs there, so the suite runs the copies too.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from instrument.errors import RewriteConflict, UnsupportedConstruct
from instrument.frontend.lower_cpu import launch_head, shared_lowering as lower_cpu_shared
from instrument.frontend.rewrite import Edit, EditPlan, apply, line_name, split_top_level

from .intervals import assignments
from .own_index import INTS
from .conditions import BLOCK as _BLOCK, GRID as _GRID, Condition, OwnIndex, extents as _extents
from .proof import Proof

SUFFIX, TEST_SUFFIX = "__hirace_q", "__hirace_quiet_ok"
BENCH_OPEN_LOOPS = "HIRACE_BENCH_OPEN_LOOP_VERSIONS"   # (measuring only: open_loop_versions)
_ORIGIN = "hirace quiet version of "   # (a version written where the next kernel starts is not that kernel's)


@dataclass
class KernelSites:
    """What a kernel's sites need of a launch for its quiet version (planner: one per kernel)."""
    quiet: bool = True                                    # every site of the kernel has a proof
    conditions: dict[str, Condition] = field(default_factory=dict)   # the sites' launch conditions, by text
    own: list[OwnIndex] = field(default_factory=list)     # the own-index tests, one per own variable
    need: int = 0                                         # quiet candidates (bits) its sites need quiet
    spans: list = field(default_factory=list)             # where its sites are
    loud_at: object = None                                # the first site checked whole (its span)

    def site(self, proof: Proof, span) -> None:
        self.spans.append(span)
        if proof.whole:
            self.quiet = False
            self.loud_at = self.loud_at or span
            return
        if proof.condition_at_site is not None:   # (an own parameter's: its kernel's own-index test, in `own`)
            self.conditions[proof.condition_at_site.device()] = proof.condition_at_site
        if proof.inside is not None and proof.inside.caps:   # (the version drops the site's bounds test)
            self.conditions[proof.inside.device()] = proof.inside
        if proof.bit is not None:
            self.need |= 1 << proof.bit

    def loud(self, span) -> None:
        """A site checked whole that no rule looks at (a library's atomic or collective)."""
        self.spans.append(span)
        self.quiet = False
        self.loud_at = self.loud_at or span


@dataclass(frozen=True)
class NoVersion:
    """Why a kernel (or a launch) gets no quiet version; false, as None is."""
    why: str

    def __bool__(self) -> bool:
        return False


_LOOPS = ("FOR_STMT", "WHILE_STMT", "DO_STMT", "CXX_FOR_RANGE_STMT")
_CONSTANT_WORDS = {"int", "unsigned", "long", "short", "char", "size_t", "sizeof", "const", "true", "false"}


_BLOCK_WORDS = {"blockIdx", "blockDim", "gridDim", "x", "y", "z"}


def _block_uniform(prog, cursor, fixed: set[str]) -> set[str]:
    """The kernel's names that hold one value in every thread of a block: its integer parameters and
    the integer locals declared once with a value of such names, `fixed` words, `blockIdx`, `blockDim`
    and `gridDim` alone (no memory read, no call, no `threadIdx`), none of them ever changed."""
    body = prog.unit.span_of(cursor)
    changed = set(assignments(prog, body)) if body is not None else set()
    changed |= {name for sp, name in prog.aliased}
    names = {c.spelling for c in cursor.get_children() if c.kind.name == "PARM_DECL"
             and c.type.get_canonical().kind in INTS}
    decls: dict[str, list] = {}
    for c in cursor.walk_preorder():
        if c.kind.name == "VAR_DECL":
            decls.setdefault(c.spelling, []).append(c)
    names -= changed
    grew = True
    while grew:
        grew = False
        for name, ds in decls.items():
            if name in names or len(ds) != 1 or name in changed or ds[0].type.get_canonical().kind not in INTS:
                continue
            init = [k for k in ds[0].get_children() if k.kind.name not in ("TYPE_REF", "NAMESPACE_REF")]
            if len(init) != 1:
                continue
            ok = True
            for x in init[0].walk_preorder():
                kind = x.kind.name
                if kind in ("CALL_EXPR", "ARRAY_SUBSCRIPT_EXPR") or (
                        kind == "UNARY_OPERATOR" and next(iter(x.get_tokens()), None) is not None and
                        next(iter(x.get_tokens())).spelling in ("*", "&")):
                    ok = False
                elif kind == "MEMBER_REF_EXPR" and re.sub(r"\s+", "", "".join(t.spelling for t in x.get_tokens())) \
                        .split(".")[0] not in ("blockIdx", "blockDim", "gridDim"):
                    ok = False
                elif kind == "DECL_REF_EXPR" and x.spelling not in names | fixed | _BLOCK_WORDS:
                    ok = False
            if ok:
                names.add(name)
                grew = True
    return names


def _open_loop(prog, cursor, spans) -> int | None:
    """The line of a loop around a site that runs a number of times the program decides as it runs (a
    condition on anything but the loop's own variable, literals, macros, the kernel template's
    parameters, fixed per instantiation, names every thread of a block holds alike (matrixMul's
    `a <= aEnd`, aEnd from a parameter and `blockIdx.y`) and the variables of such loops around it), or None: measured on the H100, loops whose
    count the data decides (spmv's rows, whose count each thread reads from memory) ran slower in the
    quiet version, whose failure path (the journal) stays in the loop's body, than with the call;
    loops of a fixed count (stencil's taps), of one count per block (matrixMul's tiles: 10.6x -> 7.3x
    on an H200; matmul's 4.97x -> 5.06x) and straight code (srad) ran faster or alike."""
    unit = prog.unit
    macros = {m.name for ms in unit.macro_expansions.values() for m in ms}
    fixed = macros | _CONSTANT_WORDS | set(template_params(cursor))
    fixed |= _block_uniform(prog, cursor, fixed)
    closed = []   # (span, variable) of the loops around sites found to run one count per block
    for c in cursor.walk_preorder():   # (outer loops before the loops they hold)
        if c.kind.name not in _LOOPS:
            continue
        sp = unit.span_of(c)
        if sp is None or not any(s.file == sp.file and sp.start <= s.start and s.end <= sp.end for s in spans):
            continue
        if c.kind.name != "FOR_STMT":
            return sp.line
        kids = list(c.get_children())
        tokens = [t.spelling for t in c.get_tokens()]
        try:   # for (init; cond; step): the condition's tokens lie between the first two `;`
            first = tokens.index(";")
            cond = tokens[first + 1: tokens.index(";", first + 1)]
        except ValueError:
            return sp.line
        own = {d.spelling for k in kids[:1] for d in k.walk_preorder() if d.kind.name == "VAR_DECL"}
        init = tokens[tokens.index("(") + 1:first] if "(" in tokens[:first] else []
        if len(init) >= 2 and init[1] == "=" and re.fullmatch(r"[A-Za-z_]\w*", init[0]):
            own.add(init[0])   # `for (i = 0; ...)`: the loop's variable, declared before it
        words = {w for w in cond if re.fullmatch(r"[A-Za-z_]\w*", w)}
        # (the variable of such a loop around this one holds one value in every thread of a block: lud's
        # `for (j = 0; j < i; j++)` inside `for (i = 0; i < BLOCK_SIZE - 1; i++)`)
        outer = {v for o, v in closed if o.file == sp.file and o.start <= sp.start and sp.end <= o.end}
        if words - own - fixed - outer:
            return sp.line
        closed += [(sp, v) for v in own]
    return None


def open_loop_versions(config) -> bool:
    """HIRACE_BENCH_OPEN_LOOP_VERSIONS=1 at instrument time (or a benchmark's configuration object with
    `bench_open_loop_versions` set, bench/hirace_overhead/variants.py's `open_loops=1`): kernels with
    sites in open loops get their versions too, for measuring the rule above side by side, for
    measuring only (docs/performance.md)."""
    return bool(config.bench_open_loop_versions) or os.environ.get(BENCH_OPEN_LOOPS, "") == "1"


_TEMPLATE_PARAMS = ("TEMPLATE_TYPE_PARAMETER", "TEMPLATE_NON_TYPE_PARAMETER", "TEMPLATE_TEMPLATE_PARAMETER")


def template_params(cursor) -> list[str]:
    """The names of a kernel template's parameters, in order (none for a kernel that is no template)."""
    if cursor.kind.name != "FUNCTION_TEMPLATE":
        return []
    return [c.spelling for c in cursor.get_children() if c.kind.name in _TEMPLATE_PARAMS]


def _template_head(header: str) -> str | None:
    """`template <...>` at the start of a kernel template's header, or None (no balanced list)."""
    m = re.match(r"\s*template\s*<", header)
    end = _closed(header, m.end(), "<>") if m else None
    return header[:end + 1].strip() if end is not None else None


def _closed(text: str, i: int, pair: str) -> int | None:
    """Where the bracket opened just before `i` closes (`pair`: the opening and closing characters),
    or None."""
    depth = 1
    while i < len(text):
        depth += {pair[0]: 1, pair[1]: -1}.get(text[i], 0)
        if depth == 0:
            return i
        i += 1
    return None


def after_definition(prog, k) -> int | None:
    """Where text may go right after kernel k's definition, in the kernel's own scope: the start of the line
    after the one its body ends on. None where a namespace the kernel is in closes on that line (`namespace x
    { __global__ void k(int *a) {...} }`: the text would land outside it, where another namespace's `k`
    copied alike would clash with it), or where no line follows."""
    line_end = prog.unit.source(k.span.file).data.find(b"\n", k.body.end)
    if line_end < 0:
        return None
    cursor = prog.cursors.get((k.body.file, k.body.start))
    p = cursor.lexical_parent if cursor is not None else None
    while p is not None and p.kind.name in ("NAMESPACE", "LINKAGE_SPEC"):   # (`extern "C"` may end with it)
        if p.kind.name == "NAMESPACE" and p.extent.end.offset <= line_end:
            return None
        p = p.lexical_parent
    return line_end + 1


def _param_list(header: str, name: str) -> tuple[int, int] | None:
    """The offsets of the kernel's parameter list (inside its parentheses) in its header text."""
    m = re.search(r"\b" + re.escape(name) + r"\s*\(", header)
    end = _closed(header, m.end(), "()") if m else None
    return (m.end(), end) if end is not None else None


def plan_version(prog, plan: EditPlan, k, sites: KernelSites, lower_cpu: bool = False,
                 open_loops: bool = False) -> Version | NoVersion:
    """Plan the quiet version of kernel `k` and its host test just after its definition (its sites,
    entry, barrier hooks and own variables already planned), or say why it cannot have one.
    `lower_cpu`: the copy is for the host compiler (its `__shared__` declarations lowered as the
    kernel's are, instrument/frontend/lower_cpu.py, which plans the kernel's own after every tool).
    A kernel template's copy and test are templates of its parameter list; its launches pass them the
    launch's explicit template arguments (launch_text). `open_loops`: sites in open loops do not keep
    a kernel from its version (the benchmark switch, open_loop_versions)."""
    if k.kind != "global":
        return NoVersion("not a __global__ kernel")
    if not sites.quiet:
        at = sites.loud_at
        return NoVersion("a site checked whole" + (f" (line {at.line}:{at.col})" if at is not None else ""))
    cursor = prog.cursors.get((k.body.file, k.body.start))
    if cursor is None or cursor.kind.name not in ("FUNCTION_DECL", "FUNCTION_TEMPLATE") or \
            (cursor.kind.name == "FUNCTION_TEMPLATE") != bool(k.is_template):
        return NoVersion("a definition hirace does not copy (a specialization, or one it cannot find)")
    inner = next((ls for ls in prog.launches
                  if ls.span.file == k.body.file and k.body.start <= ls.span.start < k.body.end), None)
    if inner is not None:
        return NoVersion(f"a launch inside it (line {inner.span.line})")   # (that launch's bracket is planned afterwards)
    loop = _open_loop(prog, cursor, sites.spans)
    if loop is not None and not open_loops:
        return NoVersion(f"a site in a loop whose count the program decides as it runs (line {loop}; "
                         f"{BENCH_OPEN_LOOPS}=1 gives it one, for measuring)")
    tparams = template_params(cursor)
    src = prog.unit.source(k.span.file)
    data = src.data
    start, end = k.span.start, k.body.end
    header = data[start:k.body.start].decode("utf-8", "replace")
    head = _template_head(header) if k.is_template else ""
    if head is None or "..." in (head or ""):
        return NoVersion("a template parameter list hirace does not copy (a pack)")
    extents = {d.name: _extents(d.type) or [] for d in prog.shared if d.function == k.name and not d.is_extern}
    names = set(k.params) | {m.name for m in prog.unit.macro_expansions.get(k.span.file, ())} | set(tparams)
    tests = []
    for text in sorted(sites.conditions):
        host = sites.conditions[text].host(extents, names)
        if host is None:
            return NoVersion(f"a launch condition the host cannot evaluate ({text})")
        if host not in tests:
            tests.append(host)
    tests += [test.host(extents, names) for test in sites.own]
    params = _param_list(header, k.name)
    if params is None or "__grid_constant__" in header:
        return NoVersion("a parameter list hirace does not copy")
    after = after_definition(prog, k)
    if after is None:
        return NoVersion("its definition ends the file's last line, or the line where its namespace closes")
    name_at = start + len(header[:params[0]].rstrip()[:-1].rstrip().encode())   # the name's end
    # the kernel's edits as the copy writes them: each planned with its quiet form (Edit.quiet; an
    # edit without one, such as a whole check or a library's, leaves the kernel without a copy)
    mine = [e for e in plan.edits
            if e.file == k.span.file and start <= e.start and e.end <= end and not e.origin.startswith(_ORIGIN)]
    loud = next((e for e in mine if e.quiet is None), None)
    if loud is not None:
        return NoVersion(f"an edit without a quiet form ({loud.origin})")
    edits = [Edit(e.file, e.start - start, e.end - start, e.quiet, e.origin, e.order) for e in mine]
    if any(e.start < len(header.encode()) and not e.is_insertion for e in edits):
        return NoVersion("an edit in its header")
    if lower_cpu:
        try:
            lowered = lower_cpu_shared(prog, k.name)
        except UnsupportedConstruct:
            return NoVersion("shared memory the cpu lowering refuses")   # (it refuses the program itself, with its reason)
        edits += [Edit(sp.file, sp.start - start, sp.end - start, text, origin) for sp, text, origin in lowered
                  if sp.file == k.span.file and start <= sp.start and sp.end <= end]
    edits.append(Edit(k.span.file, name_at - start, name_at - start, SUFFIX, "hirace quiet version's name"))
    edits.append(Edit(k.span.file, k.body.start + 1 - start, k.body.start + 1 - start,
                      " ::hirace::q::Journal __hirace_journal;", "hirace quiet version's journal", (-1,)))
    try:
        body = apply(data[start:end], edits, k.span.file, line_directives=False).decode("utf-8", "replace")
    except RewriteConflict:
        return NoVersion("its edits overlap in the copy")
    test = " && ".join(tests) or "true"
    # the test takes the parameters it names (the launch evaluates their arguments once more)
    decls = split_top_level(header[params[0]:params[1]])
    words = set(re.findall(r"[A-Za-z_]\w*", test))
    used = [i for i, name in enumerate(k.params) if name in words]
    if len(decls) != len(k.params) or any(not re.search(r"\b" + re.escape(k.params[i]) + r"\b", decls[i])
                                          for i in used):
        return NoVersion("a parameter list hirace does not copy")
    quoted = line_name(k.span.file)
    text = (f'#line {k.span.line} "{quoted}"\n{body}\n{head + " " if head else ""}'
            f"static inline bool {k.name}{TEST_SUFFIX}(dim3 {_BLOCK}, dim3 {_GRID}"
            f"{''.join(', ' + decls[i] for i in used)}) {{ (void){_BLOCK}; (void){_GRID}; return {test}; }}\n")
    if not plan.insert(k.span, after, text, f"{_ORIGIN}{k.name}", order=(-1,)):
        return NoVersion("its copy cannot be inserted after its definition")
    return Version(k, k.name + SUFFIX, tuple(used), sites.need, len(tparams))


@dataclass(frozen=True)
class Version:
    """A kernel's quiet version: its name, and the parameters (positions) its host test takes."""
    kernel: object
    name: str
    test_params: tuple[int, ...]
    need: int
    template_params: int = 0   # a kernel template's: how many parameters its list has (each launch names them all)


def visible_at(prog, k, ls) -> bool:
    """Whether the quiet version of `k` (written after its definition) is declared where launch
    `ls` is: later in the same file, or in the launch's file after an `#include` of the kernel's."""
    if ls.span.file == k.span.file:
        return k.body.end < ls.span.start
    name = k.span.file.replace("\\", "/").rsplit("/", 1)[-1]
    head = prog.unit.source(ls.span.file).data[:ls.span.start]
    return re.search(rb'#\s*include\s*["<](?:[^">]*/)?' + re.escape(name.encode()) + rb'[">]', head) is not None


def template_arguments(v: Version, callee: str) -> tuple[str, str] | NoVersion:
    """(the kernel's name as the launch writes it, its template arguments `<...>`) for a launch's callee
    (`ns::k`, `k<16>`): a template's launch names every argument of its list (none deduced nor left to
    a default: the test, which takes fewer parameters, could deduce none)."""
    m = re.fullmatch(r"((?:[\w:]*::)?" + re.escape(v.kernel.name) + r")\s*(<.*>)?", callee.strip(), re.S)
    if m is None:
        return NoVersion("a callee other than the kernel's name")
    name, targs = m.group(1), m.group(2) or ""
    if not v.template_params:
        return (name, "") if not targs else NoVersion("template arguments to a kernel that is no template")
    if not targs:
        return NoVersion("its template arguments are deduced")
    given = split_top_level(targs[1:-1])
    if len(given) != v.template_params or any(not a for a in given):
        return NoVersion(f"it names {len(given)} of the template's {v.template_params} arguments "
                         f"(the rest deduced or defaulted)")
    return name, targs


def launch_text(v: Version, callee: str, cfg: list[str], args: list[str],
                lower_cpu: bool = False, targs: str = "") -> tuple[str, str, str]:
    """(before the launch's bracket, before its call, after its call): the test, then the choice;
    `callee`: the launch's name of the kernel (a qualified name keeps its qualifier); `targs`: a
    template's arguments as the launch names them (`<16>`, template_arguments), passed to the test and
    the copy; `lower_cpu`: the version's launch as the cpu lowering writes a launch."""
    kernel = v.kernel.name
    scope = callee[: len(callee) - len(kernel)]
    test = (f"{scope}{kernel}{TEST_SUFFIX}{targs}(dim3({cfg[1]}), dim3({cfg[0]})"
            f"{''.join(', ' + args[i] for i in v.test_params)})")
    copy = f"{scope}{v.name}{targs}"
    head = launch_head(kernel, cfg, copy) if lower_cpu else f"{copy}<<<{', '.join(cfg)}>>>"
    choose = f"(::hirace::host::quiet_chosen() ? (void)({head}({', '.join(args)})) : (void)("
    return f"::hirace::host::quiet_version({test}, {v.need}u), ", choose, "))"
