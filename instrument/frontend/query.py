"""The query layer: what a CUDA translation unit contains, with exact source spans.

`query(unit)` walks the libclang tree once and returns a `Program`: kernels and
device functions (with the device functions reachable from kernels), launch
sites, memory accesses (read / write / read-modify-write, with their memory
space), `__shared__` declarations, atomics, barriers, branches and loops.
Planners in hirace/ and cltestcheck/ read these records; nothing here edits.
"""
from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass, field

from clang import cindex

from .parse import SHARED_ANNOTATION, ParsedUnit, Span, library_of
from .rewrite import split_top_level

CK = cindex.CursorKind
TK = cindex.TypeKind

ATOMIC_OPS = ("atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicInc",
              "atomicDec", "atomicCAS", "atomicAnd", "atomicOr", "atomicXor")
BARRIERS = {"__syncthreads": "block", "__syncthreads_count": "block", "__syncthreads_and": "block",
            "__syncthreads_or": "block", "__syncwarp": "warp"}
# memory fences and their scopes (docs/memory-model.md); libcu++'s atomic_thread_fence takes its
# scope as an argument (thread_scope_block, _device, _system; cuda::std::'s: system)
FENCES = {"__threadfence": "device", "__threadfence_block": "block", "__threadfence_system": "system"}
_CASTS = (CK.UNEXPOSED_EXPR, CK.PAREN_EXPR, CK.CSTYLE_CAST_EXPR, CK.CXX_STATIC_CAST_EXPR,
          CK.CXX_REINTERPRET_CAST_EXPR, CK.CXX_CONST_CAST_EXPR, CK.CXX_FUNCTIONAL_CAST_EXPR)


# cooperative groups: `block.sync()`, `cg::sync(tile)` ... are barriers of the group's scope
# the load and store intrinsics (their first argument is the address they read or write)
LOAD_INTRINSICS = {"__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv"}
STORE_INTRINSICS = {"__stwb", "__stcg", "__stcs", "__stwt"}
_REFERENCES = (TK.LVALUEREFERENCE, TK.RVALUEREFERENCE)
GROUP_SYNC = {"block": "thread_block.sync", "warp": "tile.sync", "group": "thread_group.sync"}


def _group_scope(call: cindex.Cursor, kids: list) -> tuple[str, cindex.Cursor | None] | None:
    """('block' | 'warp' | 'group' | 'grid', the group expression) for a cooperative-groups sync
    call; None for any other `sync`. A plain thread_group may be the block or a tile: 'group'."""
    ref = call.referenced
    owner = ref.semantic_parent if ref is not None else None
    while owner is not None and owner.kind not in (CK.NAMESPACE, CK.TRANSLATION_UNIT):
        owner = owner.semantic_parent
    if owner is None or owner.spelling != "cooperative_groups":
        return None
    if kids and kids[0].kind == CK.MEMBER_REF_EXPR:
        obj = next(iter(kids[0].get_children()), None)
    else:
        args = list(call.get_arguments())
        obj = args[0] if args else None
    while obj is not None and obj.kind == CK.UNEXPOSED_EXPR:   # the implicit cast to a base class
        obj = next(iter(obj.get_children()), None)
    group = obj.type.get_canonical().spelling if obj is not None else ""
    if "dependent" in group or group in ("auto", ""):   # in a template: what the group was made of
        return _dependent_group_scope(obj, qualified=True)
    return _scope_of_group_type(group, obj)


def _scope_of_group_type(group: str, obj: cindex.Cursor | None) -> tuple[str, cindex.Cursor | None] | None:
    if "grid_group" in group or "multi_grid" in group:
        return "grid", obj
    tile = re.search(r"thread_block_tile<\s*(\d+)", group)
    if tile:   # a tile wider than a warp synchronises several warps: its size decides at run time
        return ("warp" if int(tile.group(1)) <= 32 else "group"), obj
    if "thread_block_tile" in group or "thread_group" in group:
        return "group", obj
    if "coalesced_group" in group:
        return "warp", obj
    if "thread_block" in group:
        return "block", obj
    return None


# how a function template's group variable was made -> the scope of its sync
_GROUP_MAKERS = {"this_thread_block": "block", "this_grid": "grid", "this_multi_grid": "grid",
                 "coalesced_threads": "warp", "tiled_partition": "group", "binary_partition": "warp",
                 "labeled_partition": "warp"}


_COALESCED_MAKERS = ("coalesced_threads", "binary_partition", "labeled_partition")


def _group_lanes(obj: cindex.Cursor | None) -> str:
    """Barrier.lanes of a cooperative group's sync: 'tile', 'coalesced' or 'dynamic'."""
    while obj is not None and obj.kind == CK.UNEXPOSED_EXPR:
        obj = next(iter(obj.get_children()), None)
    if obj is None:
        return "dynamic"
    decl = obj.referenced if obj.kind == CK.DECL_REF_EXPR else None
    types = [obj.type.get_canonical().spelling, obj.type.spelling]
    if decl is not None and decl.kind in (CK.VAR_DECL, CK.PARM_DECL):
        types.append(decl.type.spelling)
        for init in decl.get_children():
            if init.kind == CK.CALL_EXPR:
                kids = list(init.get_children())
                maker = init.spelling or (dependent_callee(kids[0])[0] if kids else "")
                if maker in _COALESCED_MAKERS:
                    return "coalesced"
    if any("coalesced_group" in t for t in types):
        return "coalesced"
    if any(re.search(r"thread_block_tile<\s*\d+", t) for t in types):
        return "tile"
    return "dynamic"


def dependent_callee(callee: cindex.Cursor) -> tuple[str, cindex.Cursor | None]:
    """The name a call leaves unresolved in a template (libclang gives it no spelling), and for a
    member call the object: ('sync', <cta>) for `cta.sync()`, ('atomicAdd', None) for a call of
    an overloaded name."""
    while callee.kind == CK.UNEXPOSED_EXPR and not callee.spelling:
        kids = list(callee.get_children())
        if len(kids) != 1:
            break
        callee = kids[0]
    if callee.kind == CK.OVERLOADED_DECL_REF:
        return callee.spelling, None
    if callee.kind == CK.DECL_REF_EXPR and not callee.spelling:
        ovl = next((k for k in callee.get_children() if k.kind == CK.OVERLOADED_DECL_REF), None)
        return (ovl.spelling, None) if ovl is not None else ("", None)
    if callee.kind == CK.MEMBER_REF_EXPR and not callee.spelling:
        toks = [t.spelling for t in callee.get_tokens()]
        at = max((i for i, t in enumerate(toks) if t in (".", "->")), default=-1)
        obj = next(iter(callee.get_children()), None)
        if 0 <= at < len(toks) - 1 and obj is not None:
            name = toks[at + 1] if toks[at + 1] != "template" else (toks[at + 2] if at + 2 < len(toks) else "")
            return name, obj
    return "", None


def _names_cooperative_groups(callee: cindex.Cursor) -> bool:
    """An unresolved call's overloaded name belongs to namespace cooperative_groups."""
    for c in callee.walk_preorder():
        if c.kind == CK.OVERLOADED_DECL_REF:
            lib = cindex.conf.lib
            lib.clang_getOverloadedDecl.restype = cindex.Cursor
            lib.clang_getOverloadedDecl.argtypes = [cindex.Cursor, ctypes.c_uint]
            for i in range(lib.clang_getNumOverloadedDecls(c)):
                owner = lib.clang_getOverloadedDecl(c, i).semantic_parent
                while owner is not None and owner.kind not in (CK.NAMESPACE, CK.TRANSLATION_UNIT):
                    owner = owner.semantic_parent
                if owner is not None and owner.spelling == "cooperative_groups":
                    return True
            return False
    return False


def _dependent_group_scope(obj: cindex.Cursor | None, qualified: bool) -> tuple[str, cindex.Cursor | None] | None:
    """The scope of `g.sync()` / `cg::sync(g)` where g's type depends on template parameters: from
    g's declared type, else from the cooperative-groups call that made it. A `cg::sync(g)` of a
    group we cannot place is a group sync whose size decides at run time; a member `.sync()` of
    something else is not a cooperative-groups call."""
    while obj is not None and obj.kind == CK.UNEXPOSED_EXPR:
        obj = next(iter(obj.get_children()), None)
    if obj is None:
        return None
    decl = obj.referenced if obj.kind == CK.DECL_REF_EXPR else None
    if decl is not None and decl.kind in (CK.VAR_DECL, CK.PARM_DECL):
        found = _scope_of_group_type(decl.type.spelling, obj)
        if found is not None:
            return found
        for init in decl.get_children():
            if init.kind == CK.CALL_EXPR:
                kids = list(init.get_children())
                maker = init.spelling or (dependent_callee(kids[0])[0] if kids else "")
                if maker in _GROUP_MAKERS:
                    return _GROUP_MAKERS[maker], obj
    return ("group", obj) if qualified else None


def atomic_parts(name: str) -> tuple[str, str] | None:
    """'atomicAdd_block' -> ('atomicAdd', 'block'); None when not an atomic."""
    for op in ATOMIC_OPS:
        if name == op:
            return op, "device"
        if name.startswith(op + "_") and name[len(op) + 1:] in ("block", "system"):
            return op, name[len(op) + 1:]
    return None


# what may stand before a global variable's type (the parse's extent leaves them out)
_SPECIFIERS = frozenset({"__managed__", "__device__", "static", "const", "volatile", "extern", "inline", "constexpr"})


@dataclass(frozen=True)
class Function:
    name: str
    kind: str  # 'global' | 'device' | 'host_device'
    span: Span
    body: Span
    params: tuple[str, ...]
    is_template: bool
    is_constexpr: bool = False


@dataclass(frozen=True)
class LaunchSite:
    kernel: str
    span: Span            # the whole call `k<<<...>>>(...)`
    callee: Span          # `k` (or `k<T>`)
    config: Span          # `<<<...>>>`
    config_args: tuple[Span, ...]
    args: tuple[Span, ...]
    function: str         # enclosing function
    deduced_template: bool = False   # a kernel template whose arguments are deduced at the launch
    through_pointer: bool = False    # the callee is a variable or parameter: a kernel pointer
    # the kernel the launch runs, as libclang resolves its callee: its definition's span, where this unit
    # holds it (`resolved` and None: a kernel this unit only declares, or a pointer; not `resolved`: a
    # call it leaves unresolved among several candidates). A name alone may be another namespace's kernel.
    resolved: bool = False
    definition: Span | None = None


@dataclass(frozen=True)
class Access:
    span: Span
    kind: str             # 'read' | 'write' | 'rmw'
    space: str            # 'shared' | 'global' | 'constant' | 'pointer' (decided at run time)
    base: str             # root variable name ('' when none)
    function: str
    type: str             # element type spelling
    size: int             # element size in bytes (-1 unknown)
    text: str
    # what bounds the access where the expression says (a[i] on a variable a): 'array' (a declared
    # array: sizeof), 'dynamic' (an extern __shared__ array), 'pointer' (the buffer a points into)
    bound: str = ""
    bound_base: Span | None = None   # the variable's reference in the expression
    # 'lvalue': the span is the lvalue accessed (a[i], *p, s.f, a reference r); 'address': the span is
    # an address that a load/store intrinsic reads or writes through (`__ldg(p + i)`: the span p + i);
    # 'call': an lvalue reached through a reference a function of the program returns (`v[i]` of a
    # view's operator[]): where it lies is known only at run time
    form: str = "lvalue"
    # the lvalue's type is volatile-qualified (`*(volatile int *)p`, `flag[i]` of a `volatile int *`):
    # a strong access, as PTX treats ld/st.volatile (relaxed, system scope: docs/memory-model.md)
    volatile: bool = False
    # the alignment its address is sure to have, in bytes (0: unknown): the type's, less where it is a
    # member placed closer (a packed record's, or a record of alignment 1 at an odd offset: `p[i].c` of
    # a 4-byte struct of chars) -- an access of 4 bytes at an odd address spans two 4-byte words
    align: int = 0


@dataclass(frozen=True)
class SharedDecl:
    name: str
    span: Span
    type: str
    is_extern: bool
    function: str         # '' at file scope
    stmt: Span | None = None   # the whole declaration statement (with ';'), inside functions
    elem_type: str = ""        # element type of an (extern) array


@dataclass(frozen=True)
class GlobalVar:
    name: str
    span: Span
    type: str
    space: str            # 'device' | 'constant' | 'managed'
    qualified: str = ""   # its name as the end of the file can spell it ('ns::x'; '' when `name` is)


@dataclass(frozen=True)
class AtomicCall:
    name: str             # as written, e.g. 'atomicAdd_block'
    op: str               # 'atomicAdd'
    scope: str            # 'device' | 'block' | 'system'
    span: Span
    address: Span | None  # the first argument
    function: str
    bound: str = ""                  # as Access.bound, when the address is &a[i]
    bound_base: Span | None = None


@dataclass(frozen=True)
class LibAtomic:
    """An operation of a libcu++ atomic in device code: `r.fetch_add(1)` on a cuda::atomic_ref,
    `flag.load()` on a cuda::atomic (or their cuda::std:: forms), operators and conversions too."""
    span: Span            # the object the operation is called on, as written
    form: str             # 'ref' (an atomic_ref) | 'object' (an atomic) | 'pointer' (`p->op()` on an atomic)
    scope: str            # 'block' | 'device' (device, system) | 'thread' (atomic to its own thread only)
    use: str              # 'read' | 'write' | 'rmw': what the operation does at the address
    name: str             # the operation: 'fetch_add', 'operator+=', 'operator int'
    function: str
    order: str = "seq_cst"   # its memory order argument, as written (operators: seq_cst)


@dataclass(frozen=True)
class Collective:
    """A call of a CUB block or warp primitive in device code (`BlockReduce(tmp).Sum(v)`,
    `br.Sum(v)` on an object made from `tmp`): it uses the TempStorage the object was made from."""
    span: Span            # the call
    storage: Span | None  # the TempStorage argument the object was made from (None: the library's own)
    cls: str              # 'BlockReduce', 'WarpScan', ...
    level: str            # 'block': a collective of the whole block, synchronised by __syncthreads inside;
                          # 'warp': synchronised within warps only
    function: str


# CUB's block primitives that synchronise the block (__syncthreads) between writing and reading
# their TempStorage; BlockLoad, BlockStore and BlockExchange do so unless they work warp by warp
_CUB_BLOCK = {"BlockReduce", "BlockScan", "BlockRadixSort", "BlockRadixRank", "BlockRadixRankMatch",
              "BlockHistogram", "BlockDiscontinuity", "BlockAdjacentDifference", "BlockMergeSort",
              "BlockShuffle", "BlockRunLengthDecode", "BlockLoad", "BlockStore", "BlockExchange"}

# libcu++ atomics: the type of the object an operation is called on -> (form, scope)
_LIB_ATOMIC = re.compile(r"^(?:const |volatile )*cuda::(?:std::)?(atomic_ref|atomic)<(.*)>$")
_LIB_SCOPE = re.compile(r"thread_scope_(block|cluster|device|system|thread)\b")
_ORDERS = ("relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst")   # C++'s memory orders
_LIB_READS = {"load", "wait"}
_LIB_WRITES = {"store", "operator="}
_LIB_NO_ACCESS = {"notify_one", "notify_all", "is_lock_free"}


@dataclass(frozen=True)
class RangeCall:
    """memcpy, memmove or memset in device code: the bytes its arguments name are accessed."""
    name: str             # memcpy | memmove | memset
    span: Span
    dst: Span
    src: Span | None      # None for memset
    size: Span
    function: str
    dst_base: str         # the variables the addresses start from ('' unknown)
    src_base: str
    # every address names a local object of the calling function whole (`&v` of a local struct, a
    # local array `a`): the bytes are the thread's own, in no memory another thread or the host reaches
    local: bool = False


@dataclass(frozen=True)
class ApiCall:
    """A call of a CUDA runtime function (cudaMalloc, cudaFree, ...) in host code."""
    name: str
    span: Span
    args: tuple[Span, ...]
    function: str


@dataclass(frozen=True)
class Fence:
    """A memory fence in device code: `__threadfence()` (device scope), `__threadfence_block()`
    (block), `__threadfence_system()` (system), libcu++'s `atomic_thread_fence(order[, scope])`."""
    name: str
    scope: str            # 'block' | 'device' | 'system'
    span: Span
    function: str
    order: str = "seq_cst"   # libcu++'s: the memory order given ('relaxed' orders nothing)


@dataclass(frozen=True)
class Barrier:
    name: str
    scope: str            # 'block' | 'warp' | 'group' (a thread_group: the block or a tile, known at run time)
                          # | 'grid' (grid.sync(): every thread of a cooperative launch)
    span: Span
    function: str
    group: Span | None = None   # a cooperative group's sync: the group expression, whose size() tells
    # what the group's lanes are: 'tile' (aligned lanes: tiled_partition), 'coalesced' (any lanes:
    # coalesced_threads, binary/labeled_partition), 'dynamic' (a thread_group: either); '' for the rest
    lanes: str = ""
    mask: Span | None = None    # `__syncwarp(mask)`: the mask argument


@dataclass(frozen=True)
class Branch:
    kind: str             # 'if' | 'switch' | 'case' | 'default' | 'conditional' | '&&' | '||'
    span: Span
    cond: Span | None
    arms: tuple[Span | None, ...]   # if: (then, else-or-None); ?: (true, false); &&/||: (lhs, rhs)
    function: str
    plain_cond: bool = True         # False: the condition declares a variable, has an init
                                    # statement, or must be a constant (`if constexpr`)


@dataclass(frozen=True)
class Loop:
    kind: str             # 'for' | 'while' | 'do' | 'range-for'
    span: Span
    cond: Span | None
    body: Span
    function: str
    plain_cond: bool = True         # False: the condition declares a variable
    body_compound: bool = True      # the body is a `{...}` block


@dataclass(frozen=True)
class Operator:
    """A built-in operator in device code, with its operands' type classes
    ('int', 'float', 'bool', 'pointer', 'other')."""
    op: str               # '+', '<', '&&', '+=', '=', '++', '--', '-', '!'
    arity: int            # 1 or 2
    span: Span            # the whole expression
    op_span: Span         # the operator token
    operands: tuple[Span, ...]
    types: tuple[str, ...]
    prefix: bool          # unary: operator before the operand
    function: str

    def assigns(self) -> bool:
        """Does it change its first operand (`=`, `+=` ..., `++`, `--`)?"""
        return self.op in ("++", "--") or (self.arity == 2 and self.op.endswith("=") and
                                            self.op not in ("==", "!=", "<=", ">="))


@dataclass(frozen=True)
class IndexRef:
    """`threadIdx.x`, `blockIdx.y`, ... in device code."""
    name: str             # 'threadIdx' | 'blockIdx'
    component: str        # 'x' | 'y' | 'z'
    span: Span
    function: str


@dataclass(frozen=True)
class Subscript:
    """`base[index]` on memory of a known space."""
    span: Span
    index: Span
    space: str
    base: str
    function: str


@dataclass
class Program:
    unit: ParsedUnit
    functions: dict[str, Function] = field(default_factory=dict)   # by name (the last definition)
    definitions: list[Function] = field(default_factory=list)      # every definition, same names included
    launches: list[LaunchSite] = field(default_factory=list)
    accesses: list[Access] = field(default_factory=list)
    shared: list[SharedDecl] = field(default_factory=list)
    globals: list[GlobalVar] = field(default_factory=list)
    atomics: list[AtomicCall] = field(default_factory=list)
    barriers: list[Barrier] = field(default_factory=list)
    fences: list[Fence] = field(default_factory=list)
    branches: list[Branch] = field(default_factory=list)
    loops: list[Loop] = field(default_factory=list)
    api_calls: list[ApiCall] = field(default_factory=list)
    # local variables and parameters of device code that a reference binds or whose address a call's
    # reference parameter takes (`int &r = i;`, `f(i)` with `void f(int &)`): r or f may change them
    aliased: list[tuple[Span, str]] = field(default_factory=list)
    ranges: list[RangeCall] = field(default_factory=list)   # memcpy/memset in device code
    lib_atomics: list[LibAtomic] = field(default_factory=list)
    collectives: list[Collective] = field(default_factory=list)   # CUB primitives' calls
    calls: dict[str, set[str]] = field(default_factory=dict)
    operators: list[Operator] = field(default_factory=list)
    index_refs: list[IndexRef] = field(default_factory=list)
    subscripts: list[Subscript] = field(default_factory=list)
    # device code makes coalesced groups (coalesced_threads, binary/labeled_partition): a plain
    # thread_group may then hold any lanes of a warp, not only an aligned tile
    coalesced_groups: bool = False
    # constructs in device code that some backends or tools cannot handle: (what, where)
    special: list[tuple[str, Span]] = field(default_factory=list)
    # the first use, per function, of each name the toolkit's libraries declare: (library, name, where, function)
    library_uses: list[tuple[str, str, Span, str]] = field(default_factory=list)
    # code inside a function that cannot see its local variables: lambdas and local classes
    nested_bodies: list[Span] = field(default_factory=list)
    # every function definition's libclang cursor, by its body's (file, start): for analyses that
    # follow statements (hirace/proofs/intervals.py)
    cursors: dict[tuple[str, int], cindex.Cursor] = field(default_factory=dict)
    # the device pass's view (device_view.py): the architecture whose device pass gave the facts of
    # device code (80: sm_80; 0: every fact is the host pass's), the other architectures the build
    # compiles, why the device pass's reading failed (''), and the unit's conditions on __CUDA_ARCH__
    device_arch: int = 0
    other_archs: tuple[int, ...] = ()
    device_error: str = ""
    arch_conditions: list = field(default_factory=list)

    @property
    def kernels(self) -> list[Function]:
        """Every kernel definition: kernels of one name in different namespaces are distinct."""
        return [f for f in self.definitions if f.kind == "global"]

    def device_reachable(self) -> set[str]:
        """Kernels plus every device function a kernel calls, directly or not."""
        seen = {k.name for k in self.kernels}
        todo = list(seen)
        while todo:
            for callee in self.calls.get(todo.pop(), ()):
                if callee in self.functions and callee not in seen:
                    seen.add(callee)
                    todo.append(callee)
        return seen


def attr_kind(cursor: cindex.Cursor) -> str | None:
    kinds = {c.kind for c in cursor.get_children()}
    if CK.CUDAGLOBAL_ATTR in kinds:
        return "global"
    if CK.CUDADEVICE_ATTR in kinds:
        return "host_device" if CK.CUDAHOST_ATTR in kinds else "device"
    return None


def _attribute_kinds(c: cindex.Cursor) -> set:
    """The kinds of c's children, a __shared__ that the parse spelled as an annotation counting as
    CUDASHARED_ATTR (parse.py: a __shared__ object with a constructor, which clang refuses)."""
    kinds = set()
    for k in c.get_children():
        kinds.add(CK.CUDASHARED_ATTR if k.kind == CK.ANNOTATE_ATTR and k.spelling == SHARED_ANNOTATION else k.kind)
    return kinds


def _qualified(c: cindex.Cursor) -> str:
    """A variable's name qualified by its named namespaces ('ns::x'), as code at the end of its file can
    spell it; '' when its name alone does (at file scope, or only in unnamed namespaces)."""
    parts, p = [], c.semantic_parent
    while p is not None and p.kind == CK.NAMESPACE:
        if p.spelling:
            parts.append(p.spelling)
        p = p.semantic_parent
    return "::".join(["", *reversed(parts), c.spelling]) if parts else ""


def destructors_of(t: cindex.Type, depth: int = 0) -> list[str]:
    """The destructors a class declares that run when an object of type t is destroyed (its own, its
    bases' and its members', arrays of them too), by name (`~D`)."""
    t = t.get_canonical()
    while t.kind in (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY, TK.VARIABLEARRAY, TK.DEPENDENTSIZEDARRAY):
        t = t.element_type.get_canonical()
    if t.kind != TK.RECORD or depth > 8:
        return []
    out = []
    decl = t.get_declaration()
    # (an implicit instantiation, `Put<int>`, shows no members: its template's, whose destructor is `~Put<T>`)
    template = cindex.conf.lib.clang_getSpecializedCursorTemplate(decl)
    if template is not None and not template.kind.is_invalid() and not any(True for _ in decl.get_children()):
        decl = template
    for k in decl.get_children():
        if k.kind == CK.DESTRUCTOR:
            out.append(k.spelling)
        elif k.kind in (CK.FIELD_DECL, CK.CXX_BASE_SPECIFIER):
            out += destructors_of(k.type, depth + 1)
    return out


# what makes an object that is destroyed later, by a call of its destructor the syntax tree shows nowhere
DESTROYED = (CK.VAR_DECL, CK.PARM_DECL, CK.CALL_EXPR, CK.INIT_LIST_EXPR, CK.CXX_FUNCTIONAL_CAST_EXPR,
             CK.CXX_DELETE_EXPR)


def destroyed_by(c: cindex.Cursor) -> list[str]:
    """The destructors (`~D`) that run when the object c declares or makes is destroyed: a variable or
    parameter of class type, a temporary an expression constructs (`D{a}`, `D(a)`), what `delete` ends; none for a
    reference, a pointer, a __shared__ variable."""
    if c.kind == CK.CALL_EXPR and (c.referenced is None or c.referenced.kind != CK.CONSTRUCTOR):
        return []
    if c.kind == CK.CXX_DELETE_EXPR:   # `delete p`: the object p points to
        kids = [k for k in c.get_children() if k.kind != CK.TYPE_REF]
        return destructors_of(kids[0].type.get_pointee()) if kids else []
    if c.kind not in DESTROYED or (c.kind == CK.VAR_DECL and CK.CUDASHARED_ATTR in _attribute_kinds(c)):
        return []
    return destructors_of(c.type)


def local_variable(c: cindex.Cursor) -> bool:
    """Does expression c (through casts and parentheses) name a local variable of the function it is in, whose
    storage is its own: not static, `__shared__` or `__device__`, not a parameter, a pointer or a reference
    (whose object may lie anywhere)? Its bytes are the running thread's alone."""
    c = _strip(c)
    if c.kind != CK.DECL_REF_EXPR or c.referenced is None or c.referenced.kind != CK.VAR_DECL:
        return False
    v = c.referenced
    parent = v.semantic_parent
    if parent is None or parent.kind not in _FUNCTION_KINDS or v.storage_class != cindex.StorageClass.NONE:
        return False
    if _attribute_kinds(v) & {CK.CUDASHARED_ATTR, CK.CUDADEVICE_ATTR, CK.CUDACONSTANT_ATTR}:
        return False
    return v.type.get_canonical().kind not in (TK.POINTER, TK.LVALUEREFERENCE, TK.RVALUEREFERENCE)


def _is_decomposition(c: cindex.Cursor) -> bool:
    """The declaration of a structured binding, `auto &[x, y] = e` (libclang names it '[x, y]')."""
    return c.kind == CK.UNEXPOSED_DECL and c.spelling.startswith("[")


def _align(c: cindex.Cursor, ctype: cindex.Type) -> int:
    """The alignment lvalue `c` (of canonical type `ctype`) is sure to have, in bytes (0: unknown): its
    type's, bounded by each member's offset and its record's alignment along `a.b.c` (`p[i].v` of a
    packed record, or of a 4-byte struct of chars placed at offset 1)."""
    align = ctype.get_align()
    if align <= 0:
        return 0
    e, depth = c, 0
    while e.kind == CK.MEMBER_REF_EXPR and depth < 16:
        depth += 1
        f = e.referenced
        if f is None or f.kind != CK.FIELD_DECL:
            break
        bits, rec = f.get_field_offsetof(), f.semantic_parent.type.get_canonical().get_align()
        if bits < 0 or bits % 8 or rec <= 0:   # (a bit-field, a dependent record: unknown)
            return 0
        align = min(align, rec, (bits // 8) & -(bits // 8) or align)
        kids = [k for k in e.get_children() if k.kind != CK.TYPE_REF]
        if len(kids) != 1:
            break
        e = _strip(kids[0])
    return align


# expressions whose pointer value is loaded from memory (or returned by a call), not a variable's (a
# unary operator only as `*`: `&a[0]`, `p++` are the variable's)
# the operator before a member expression's name, at its end (`p->x`, `s.v`, `q->template get`)
_LAST_MEMBER = re.compile(r"(->|\.)\s*(?:template\s+)?~?[A-Za-z_]\w*\s*$")
_LOADED_POINTERS = (CK.ARRAY_SUBSCRIPT_EXPR, CK.MEMBER_REF_EXPR, CK.UNARY_OPERATOR, CK.CALL_EXPR)


def _strip(c: cindex.Cursor) -> cindex.Cursor:
    while c.kind in _CASTS:
        kids = list(c.get_children())
        kids = [k for k in kids if k.kind != CK.TYPE_REF]
        if len(kids) != 1:
            break
        c = kids[0]
    return c


# every kind of function definition whose body may hold device code (members included: a
# conversion operator that declares `extern __shared__` memory is common, e.g. SharedMemory<T>)
_FUNCTION_KINDS = (CK.FUNCTION_DECL, CK.FUNCTION_TEMPLATE, CK.CXX_METHOD, CK.CONVERSION_FUNCTION,
                   CK.CONSTRUCTOR, CK.DESTRUCTOR)


# what clang calls for a launch's <<<...>>>: in the host pass's reading, and in the device pass's
# (parse.py device_arch; declared by runtime/include/cudaparse/api_decls.h)
_LAUNCH_CONFIGURATION = ("__cudaPushCallConfiguration", "cudaConfigureCall")


class _Walker:
    def __init__(self, unit: ParsedUnit, prog: Program):
        self.u = unit
        self.p = prog
        self._atomic_objects: set[tuple[str, int, int]] = set()   # operands of LibAtomic: no plain access
        self._ref_bindings: set[int] = set()   # the names a structured binding by reference declares
        self._library_named: set[tuple[str, str]] = set()

    # -- tokens --------------------------------------------------------------
    def _src(self, span: Span):
        return self.u.source(span.file)

    def _binop(self, c: cindex.Cursor) -> str:
        kids = list(c.get_children())
        sp = self.u.span_of(kids[0]) if kids else None
        if sp is None:
            return ""
        t = self._src(sp).token_at_or_after(sp.end)
        return t.spelling if t else ""

    def _unop(self, c: cindex.Cursor) -> tuple[str, bool]:
        """(operator, is_prefix)."""
        sp = self.u.span_of(c)
        if sp is None:
            return "", True
        src = self._src(sp)
        first = src.token_at_or_after(sp.start)
        if first and first.spelling in ("++", "--", "*", "&", "-", "+", "!", "~"):
            return first.spelling, True
        last = src.token_before(sp.end)
        return (last.spelling if last else ""), False

    def _member_arrow(self, c: cindex.Cursor) -> bool:
        loc = c.location
        if loc.file is None:
            return False
        if not c.spelling:   # a member of a dependent type (`p->x` of `T *p`): located at its base, not its name
            sp = self.u.span_of(c)
            if sp is None:
                return False
            m = _LAST_MEMBER.search(self.u.source(sp.file).text(sp.start, sp.end))
            return bool(m and m.group(1) == "->")
        t = self.u.source(loc.file.name).token_before(loc.offset)
        return bool(t and t.spelling == "->")

    # -- walking -------------------------------------------------------------
    def run(self) -> None:
        for c in self.u.tu.cursor.get_children():
            f = c.location.file
            if f is None or not self.u.is_user_file(f.name):
                continue
            self._top(c)

    def _top(self, c: cindex.Cursor) -> None:
        if c.kind in (CK.NAMESPACE, CK.UNEXPOSED_DECL, CK.LINKAGE_SPEC):
            for k in c.get_children():
                self._top(k)
            return
        if c.kind == CK.VAR_DECL:
            self._global_var(c)
            return
        if c.kind in _FUNCTION_KINDS and c.is_definition():
            self._function(c)
            return
        if c.kind in (CK.STRUCT_DECL, CK.CLASS_DECL, CK.CLASS_TEMPLATE):
            for k in c.get_children():
                if k.kind in _FUNCTION_KINDS and k.is_definition():
                    self._function(k)

    def _global_var(self, c: cindex.Cursor) -> None:
        if not c.is_definition():
            return
        kinds = _attribute_kinds(c)
        sp = self.u.span_of(c)
        if sp is None:
            return
        if CK.CUDASHARED_ATTR in kinds:
            self.p.shared.append(SharedDecl(c.spelling, sp, c.type.spelling,
                                            c.storage_class == cindex.StorageClass.EXTERN, ""))
        elif CK.CUDACONSTANT_ATTR in kinds:
            self.p.globals.append(GlobalVar(c.spelling, sp, c.type.spelling, "constant", _qualified(c)))
        elif "__managed__" in {t.spelling for t in c.get_tokens()} or self._managed_before(sp):
            # declared as device memory for the parse, so kernels' accesses to it are checked
            self.p.globals.append(GlobalVar(c.spelling, sp, c.type.spelling, "managed", _qualified(c)))
        elif CK.CUDADEVICE_ATTR in kinds:
            self.p.globals.append(GlobalVar(c.spelling, sp, c.type.spelling, "device", _qualified(c)))

    def _managed_before(self, sp: Span) -> bool:
        """`__managed__` among the specifiers written before the variable's name, inside its extent or just
        before it (libclang's tokens of the cursor may leave out a macro that starts the declaration)."""
        src = self._src(sp)
        if any(t.spelling == "__managed__" for t in src.tokens_in(sp.start, sp.end)):
            return True
        at = sp.start
        for _ in range(6):
            t = src.token_before(at)
            if t is None or t.spelling not in _SPECIFIERS:
                return False
            if t.spelling == "__managed__":
                return True
            at = t.offset
        return False

    def _function(self, c: cindex.Cursor) -> None:
        kind = attr_kind(c) or "host"
        body = next((k for k in c.get_children() if k.kind == CK.COMPOUND_STMT), None)
        sp, bsp = self.u.span_of(c), (self.u.span_of(body) if body is not None else None)
        if sp is None or bsp is None:
            return
        name = c.spelling
        self.p.cursors[(bsp.file, bsp.start)] = c
        if kind != "host":
            params = tuple(a.spelling for a in c.get_children() if a.kind == CK.PARM_DECL)
            head = [t.spelling for t in c.get_tokens()][:12]
            fn = Function(name, kind, sp, bsp, params, c.kind == CK.FUNCTION_TEMPLATE, "constexpr" in head)
            self.p.functions[name] = fn
            self.p.definitions.append(fn)
        self.fn = name
        self.device = kind != "host"
        self.returns_reference = c.result_type.kind == TK.LVALUEREFERENCE
        self.p.calls.setdefault(name, set())
        if self.device:   # a parameter taken by value is destroyed when the function returns
            for a in c.get_children():
                if a.kind == CK.PARM_DECL:
                    self.p.calls[name].update(destroyed_by(a))
        self._stmt(body, None)

    def _stmt(self, c: cindex.Cursor, parent: cindex.Cursor | None) -> None:
        """Visit c (whose syntactic parent is `parent`) and its subtree."""
        k = c.kind
        sp = self.u.span_of(c)
        if k == CK.CALL_EXPR:
            self._call(c, sp)
        if self.device and k in DESTROYED:   # an object destroyed later: its destructor is called (unseen)
            self.p.calls.setdefault(self.fn, set()).update(destroyed_by(c))
        if self.device and sp is not None and k == CK.ASM_STMT:
            self.p.special.append(("inline assembly", sp))
        if _is_decomposition(c) and c.type.kind in _REFERENCES:
            self._ref_bindings |= {b.hash for b in c.get_children() if b.kind == CK.UNEXPOSED_DECL}
        if sp is not None and k in (CK.LAMBDA_EXPR, CK.STRUCT_DECL, CK.CLASS_DECL, CK.UNION_DECL):
            self.p.nested_bodies.append(sp)
        if sp is not None and k in (CK.TYPE_REF, CK.TEMPLATE_REF, CK.DECL_REF_EXPR) and self.u.library_includes:
            self._library_use(c, sp)
        if self.device and sp is not None:
            self._aliases(c, k, sp)
            if k == CK.VAR_DECL:
                kinds = _attribute_kinds(c)
                if CK.CUDASHARED_ATTR in kinds:
                    stmt = self.u.span_of(parent) if parent is not None and \
                        parent.kind == CK.DECL_STMT else None
                    t = c.type
                    elem = t.element_type.spelling if t.kind in (
                        TK.CONSTANTARRAY, TK.INCOMPLETEARRAY, TK.DEPENDENTSIZEDARRAY) else ""
                    self.p.shared.append(SharedDecl(c.spelling, sp, t.spelling,
                                                    c.storage_class == cindex.StorageClass.EXTERN,
                                                    self.fn, stmt, elem))
            elif k in (CK.ARRAY_SUBSCRIPT_EXPR, CK.UNARY_OPERATOR, CK.MEMBER_REF_EXPR,
                       CK.DECL_REF_EXPR, CK.CALL_EXPR):
                self._maybe_access(c, parent, sp)
            if k == CK.IF_STMT:
                self._if(c, sp)
            elif k == CK.SWITCH_STMT:
                kids = list(c.get_children())
                cond = kids[-2] if len(kids) >= 2 else kids[0]
                self.p.branches.append(Branch("switch", sp, self.u.span_of(cond), (), self.fn,
                                              len(kids) == 2 and cond.kind != CK.VAR_DECL))
            elif k in (CK.CASE_STMT, CK.DEFAULT_STMT):
                kids = list(c.get_children())
                body = self.u.span_of(kids[-1]) if kids else None
                cond = self.u.span_of(kids[0]) if k == CK.CASE_STMT and kids else None
                self.p.branches.append(Branch("case" if k == CK.CASE_STMT else "default", sp,
                                              cond, (body,), self.fn))
            elif k == CK.CONDITIONAL_OPERATOR:
                kids = list(c.get_children())
                if len(kids) == 3:
                    self.p.branches.append(Branch("conditional", sp, self.u.span_of(kids[0]),
                                                  (self.u.span_of(kids[1]), self.u.span_of(kids[2])),
                                                  self.fn))
            elif k == CK.BINARY_OPERATOR:
                op = self._binop(c)
                if op in ("&&", "||"):
                    kids = list(c.get_children())
                    self.p.branches.append(Branch(op, sp, None, (self.u.span_of(kids[0]),
                                                                 self.u.span_of(kids[1])), self.fn))
            elif k in (CK.FOR_STMT, CK.WHILE_STMT, CK.DO_STMT, CK.CXX_FOR_RANGE_STMT):
                self._loop(c, sp)
            if k in (CK.BINARY_OPERATOR, CK.COMPOUND_ASSIGNMENT_OPERATOR, CK.UNARY_OPERATOR):
                self._operator(c, sp)
            elif k == CK.MEMBER_REF_EXPR:
                self._index_ref(c, sp)
            if k == CK.ARRAY_SUBSCRIPT_EXPR:
                self._subscript(c, sp)
        for child in c.get_children():
            self._stmt(child, c)

    def _library_use(self, c: cindex.Cursor, sp: Span) -> None:
        ref = c.referenced
        f = ref.location.file if ref is not None else None
        found = library_of(f.name) if f is not None else None
        if found is None:
            return
        top = {"CUB": "cub::", "Thrust": "thrust::"}.get(found[0], "cuda::")
        if (self.fn, top + ref.spelling) not in self._library_named:
            self._library_named.add((self.fn, top + ref.spelling))
            self.p.library_uses.append((found[0], top + ref.spelling, sp, self.fn))

    # -- calls, launches, atomics, barriers ----------------------------------
    def _kernel_definition(self, ref: cindex.Cursor | None) -> tuple[bool, Span | None]:
        """(whether libclang resolves a launch's callee `ref`, the span of the kernel definition it names in
        this unit, or None: a variable, or a kernel defined elsewhere). A name a template leaves unresolved
        resolves where it has one candidate; a template's specialization to its template's definition."""
        if ref is None:
            return False, None
        lib = cindex.conf.lib
        if ref.kind == CK.OVERLOADED_DECL_REF:
            lib.clang_getOverloadedDecl.restype = cindex.Cursor
            lib.clang_getOverloadedDecl.argtypes = [cindex.Cursor, ctypes.c_uint]
            if lib.clang_getNumOverloadedDecls(ref) != 1:
                return False, None
            ref = lib.clang_getOverloadedDecl(ref, 0)
        if ref.kind in (CK.VAR_DECL, CK.PARM_DECL, CK.FIELD_DECL):
            return True, None      # (a kernel pointer: no kernel of the unit's by name)
        if ref.kind not in (CK.FUNCTION_DECL, CK.FUNCTION_TEMPLATE):
            return False, None
        d = ref.get_definition()
        if d is None and ref.kind == CK.FUNCTION_DECL:   # (an implicit instantiation: its template's)
            lib.clang_getSpecializedCursorTemplate.restype = cindex.Cursor
            lib.clang_getSpecializedCursorTemplate.argtypes = [cindex.Cursor]
            t = lib.clang_getSpecializedCursorTemplate(ref)
            d = t.get_definition() if t is not None and not t.kind.is_invalid() else None
        return True, (self.u.span_of(d) if d is not None else None)

    def _call(self, c: cindex.Cursor, sp: Span | None) -> None:
        name = c.spelling
        kids = list(c.get_children())
        if name in _LAUNCH_CONFIGURATION:
            return
        cfg = next((k for k in kids[1:2] if k.kind == CK.CALL_EXPR
                    and k.spelling in _LAUNCH_CONFIGURATION), None)
        if cfg is not None and sp is not None:
            csp = self.u.span_of(cfg)
            cargs = tuple(s for s in (self.u.span_of(a) for a in cfg.get_children()
                                      if a.kind != CK.UNEXPOSED_EXPR or a.spelling != cfg.spelling)
                          if s is not None)
            cargs = tuple(a for a in cargs if a.start > csp.start)
            args = tuple(s for s in (self.u.span_of(a) for a in kids[2:]) if s is not None)
            callee = self.u.span_of(kids[0])
            ref = kids[0].referenced
            is_spec = ref is not None and ref.get_num_template_arguments() > 0
            written = self._src(callee).text(callee.start, callee.end) if callee is not None else ""
            explicit = "<" in written
            # (`k<16>` of a template of two parameters: the rest deduced, or defaulted)
            some = is_spec and explicit and written.rfind(">") > written.index("<") and len(split_top_level(
                written[written.index("<") + 1:written.rindex(">")])) < ref.get_num_template_arguments()
            if self.device:
                self.p.special.append(("dynamic parallelism", sp))
                return
            # a template whose arguments deduce at the launch, also one a dependent call leaves
            # unresolved (a launch inside a function template)
            unresolved = ref is None or ref.kind not in (CK.FUNCTION_DECL, CK.VAR_DECL, CK.PARM_DECL,
                                                         CK.FIELD_DECL)   # those: a function pointer
            if not name and callee is not None:   # a dependent call has no spelling: the name as written
                name = self._src(callee).text(callee.start, callee.end).split("<")[0].split("::")[-1].strip()
            resolved, definition = self._kernel_definition(ref)
            self.p.launches.append(LaunchSite(name, sp, callee, csp, cargs, args, self.fn,
                                               (is_spec or unresolved) and not explicit or some,
                                               ref is not None and ref.kind in (CK.VAR_DECL, CK.PARM_DECL),
                                               resolved, definition))
            self.p.calls.setdefault(self.fn, set()).add(name)
            return
        member_obj = None
        if not name and kids:   # a call a template leaves unresolved: the name as written
            name, member_obj = dependent_callee(kids[0])
        self.p.calls.setdefault(self.fn, set()).add(name)
        if not self.device and sp is not None and name.startswith("cuda"):
            args = tuple(s for s in (self.u.span_of(a) for a in c.get_arguments()) if s is not None)
            self.p.api_calls.append(ApiCall(name, sp, args, self.fn))
        if not self.device or sp is None:
            return
        if self.u.library_includes and (self._lib_atomic(c, name, kids) or self._collective(c, sp, kids)):
            return
        if name in _COALESCED_MAKERS:
            self.p.coalesced_groups = True
        if name in FENCES or name == "atomic_thread_fence":
            self._fence(c, name, sp)
            return
        if name in BARRIERS:
            args = list(c.get_arguments())
            mask = self.u.span_of(args[0]) if name == "__syncwarp" and args else None
            self.p.barriers.append(Barrier(name, BARRIERS[name], sp, self.fn, mask=mask))
            return
        if name == "sync":
            if c.referenced is not None:
                found = _group_scope(c, kids)
            elif member_obj is not None:
                found = _dependent_group_scope(member_obj, qualified=False)
            else:
                args = kids[1:]
                found = _dependent_group_scope(args[0], qualified=True) \
                    if args and _names_cooperative_groups(kids[0]) else None
            if found is None:
                return
            scope, obj = found
            if scope == "grid":   # (a cooperative launch's; the cpu backend refuses it by name)
                self.p.special.append(("grid synchronisation", sp))
                self.p.barriers.append(Barrier("grid.sync", "grid", sp, self.fn))
                return
            gsp = self.u.span_of(obj) if scope in ("group", "warp") and obj is not None else None
            if scope == "group" and gsp is None:
                scope = "warp"
            lanes = _group_lanes(obj) if scope in ("group", "warp") else ""
            self.p.barriers.append(Barrier(GROUP_SYNC[scope], scope, sp, self.fn, gsp, lanes))
            return
        parts = atomic_parts(name)
        if parts:
            addr = self.u.span_of(kids[1]) if len(kids) > 1 else None
            bound, base = "", None
            target = _strip(kids[1]) if len(kids) > 1 else None
            if target is not None and target.kind == CK.UNARY_OPERATOR and self._unop(target) == ("&", True):
                inner = [k for k in target.get_children() if k.kind != CK.TYPE_REF]
                if len(inner) == 1:
                    bound, base = self._bound(_strip(inner[0]))
            self.p.atomics.append(AtomicCall(name, parts[0], parts[1], sp, addr, self.fn, bound, base))
            return
        if name in LOAD_INTRINSICS or name in STORE_INTRINSICS:
            self._intrinsic(name in STORE_INTRINSICS, kids[1] if len(kids) > 1 else None)
        elif name in ("memcpy", "memmove", "memset"):
            args = list(c.get_arguments())
            spans = [self.u.span_of(a) for a in args]
            if len(args) == 3 and None not in spans:
                root = lambda a: getattr(self._root(_strip(a)), "spelling", "")   # noqa: E731
                addrs = args[:1] if name == "memset" else args[:2]
                self.p.ranges.append(RangeCall(name, sp, spans[0], None if name == "memset" else spans[1], spans[2],
                                               self.fn, root(args[0]), "" if name == "memset" else root(args[1]),
                                               all(self._local_object(a) for a in addrs)))

    def _order(self, c: cindex.Cursor) -> str:
        """The memory order a call of libcu++ is given (its argument that names one), else seq_cst."""
        for a in c.get_arguments():
            asp = self.u.span_of(a)
            text = self._src(asp).text(asp.start, asp.end) if asp is not None else ""
            found = next((o for o in _ORDERS if re.search(rf"\bmemory_order(_|::){o}\b", text)), None)
            if found:
                return found
        return "seq_cst"

    def _fence(self, c: cindex.Cursor, name: str, sp: Span) -> None:
        """Record a fence (Fence): CUDA's by name; libcu++'s atomic_thread_fence by its arguments,
        as written (`cuda::memory_order_release`, `cuda::thread_scope_block`, `std::memory_order::acquire`)."""
        if name in FENCES:
            self.p.fences.append(Fence(name, FENCES[name], sp, self.fn))
            return
        args = [self._src(a).text(a.start, a.end) for a in (self.u.span_of(x) for x in c.get_arguments())
                if a is not None]
        order = self._order(c)
        scope = "system"
        if len(args) > 1:
            m = _LIB_SCOPE.search(args[1])
            scope = {"cluster": "block", "thread": "block"}.get(m.group(1), m.group(1)) if m else "system"
        self.p.fences.append(Fence(name, scope, sp, self.fn, order))

    def _collective(self, c: cindex.Cursor, sp: Span, kids: list) -> bool:
        """Record a call of a CUB primitive's member (Collective); False for any other call."""
        ref = c.referenced
        f = ref.location.file if ref is not None else None
        cls = ref.semantic_parent.spelling if ref is not None and ref.semantic_parent is not None else ""
        if f is None or ref.kind != CK.CXX_METHOD or not cls.startswith(("Block", "Warp")) or \
                (library_of(f.name) or ("",))[0] != "CUB":
            return False
        obj = next(iter(kids[0].get_children()), None) if kids and kids[0].kind == CK.MEMBER_REF_EXPR else None
        maker = None   # the constructor call that made the object
        while obj is not None and maker is None:
            if obj.kind == CK.CALL_EXPR and obj.referenced is not None and obj.referenced.kind == CK.CONSTRUCTOR:
                maker = obj
            elif obj.kind == CK.DECL_REF_EXPR and obj.referenced is not None and obj.referenced.kind == CK.VAR_DECL:
                obj = next((k for k in obj.referenced.get_children() if k.kind in (CK.CALL_EXPR, CK.UNEXPOSED_EXPR)),
                           None)
            elif obj.kind in (CK.UNEXPOSED_EXPR, CK.CXX_FUNCTIONAL_CAST_EXPR, CK.PAREN_EXPR):
                obj = next((k for k in obj.get_children() if k.kind != CK.TYPE_REF), None)
            else:
                obj = None
        storage = None
        for arg in maker.get_arguments() if maker is not None else ():
            if "TempStorage" in arg.type.spelling or "Uninitialized" in arg.type.get_canonical().spelling:
                storage = self.u.span_of(arg)
                break
        warp = cls.startswith("Warp") or cls not in _CUB_BLOCK or "WARP_TRANSPOSE" in (
            maker.type.get_canonical().spelling if maker is not None else "")
        self.p.collectives.append(Collective(sp, storage, cls, "warp" if warp else "block", self.fn))
        return True

    def _lib_atomic(self, c: cindex.Cursor, name: str, kids: list) -> bool:
        """Record an operation of a libcu++ atomic (LibAtomic); False for any other call."""
        ref = c.referenced
        f = ref.location.file if ref is not None else None
        if f is None or ref.kind not in (CK.CXX_METHOD, CK.CONVERSION_FUNCTION) or \
                (library_of(f.name) or ("",))[0] != "libcu++":
            return False
        arrow = False
        if kids and kids[0].kind == CK.MEMBER_REF_EXPR:
            obj, arrow = next(iter(kids[0].get_children()), None), self._member_arrow(kids[0])
        else:   # an operator: its object first
            obj = kids[0] if kids else None
        while obj is not None and obj.kind == CK.UNEXPOSED_EXPR and len(list(obj.get_children())) == 1:
            inner = next(iter(obj.get_children()))
            if inner.kind not in (CK.UNEXPOSED_EXPR, CK.DECL_REF_EXPR, CK.MEMBER_REF_EXPR, CK.ARRAY_SUBSCRIPT_EXPR,
                                  CK.UNARY_OPERATOR, CK.CALL_EXPR, CK.PAREN_EXPR):
                break
            obj = inner   # (the implicit casts to the class that declares the operation)
        sp = self.u.span_of(obj) if obj is not None else None
        if sp is None:
            return False
        otype = obj.type.get_pointee() if arrow else obj.type
        m = _LIB_ATOMIC.match(otype.spelling) or _LIB_ATOMIC.match(otype.get_canonical().spelling)
        if m is None:
            return False
        scope = _LIB_SCOPE.search(m.group(2))
        # cuda::std:: atomics are of system scope; a cluster of blocks is not modelled: its atomics
        # count as the block's (an unordered pair of blocks of one cluster is reported)
        scope = {"cluster": "block", "system": "device"}.get(scope.group(1), scope.group(1)) if scope else "device"
        if name in _LIB_NO_ACCESS:
            return True
        use = "read" if name in _LIB_READS or ref.kind == CK.CONVERSION_FUNCTION else \
            "write" if name in _LIB_WRITES else "rmw"
        form = "pointer" if arrow else "ref" if m.group(1) == "atomic_ref" else "object"
        self.p.lib_atomics.append(LibAtomic(sp, form, scope, use, name, self.fn, self._order(c)))
        self._atomic_objects.add((sp.file, sp.start, sp.end))
        return True

    def _aliases(self, c: cindex.Cursor, k, sp: Span) -> None:
        """Note the variables c lets something else change: bound by a reference that is not const, or
        passed to a parameter that is one (a call a template leaves unresolved: unless every function of
        its name takes that argument by value)."""
        def note(arg: cindex.Cursor) -> None:
            a = _strip(arg)
            if a.kind == CK.DECL_REF_EXPR and a.referenced is not None and \
                    a.referenced.kind in (CK.VAR_DECL, CK.PARM_DECL):
                self.p.aliased.append((sp, a.spelling))
        if (k == CK.VAR_DECL or _is_decomposition(c)) and c.type.kind in _REFERENCES and \
                not c.type.get_pointee().is_const_qualified():
            init = [x for x in c.get_children() if x.kind not in (CK.TYPE_REF, CK.NAMESPACE_REF, CK.TEMPLATE_REF,
                                                                  CK.UNEXPOSED_DECL)]
            if init:
                note(init[-1])
        elif k == CK.CALL_EXPR:
            ref = c.referenced
            args = list(c.get_arguments())
            if ref is not None and ref.kind in (CK.FUNCTION_DECL, CK.CXX_METHOD, CK.FUNCTION_TEMPLATE, CK.CONSTRUCTOR):
                parms = [x for x in ref.get_children() if x.kind == CK.PARM_DECL]
                for n, arg in enumerate(args):
                    t = parms[n].type if n < len(parms) else None
                    if t is not None and t.kind in _REFERENCES and not t.get_pointee().is_const_qualified():
                        note(arg)
            elif ref is None:
                kids = list(c.get_children())
                for arg in kids[1:]:
                    if not self._by_value(c, arg):
                        note(arg)

    def _intrinsic(self, store: bool, arg: cindex.Cursor | None) -> None:
        """A load or store intrinsic's access: of the lvalue whose address it is given (`__ldg(&a[i])`
        reads a[i], checked as any read of it is), or else through the address itself."""
        if arg is None:
            return
        use = "write" if store else "read"
        target = _strip(arg)
        if target.kind == CK.UNARY_OPERATOR and self._unop(target) == ("&", True):
            inner = [k for k in target.get_children() if k.kind != CK.TYPE_REF]
            lv = _strip(inner[0]) if len(inner) == 1 else None
            sp = self.u.span_of(lv) if lv is not None else None
            if sp is not None and self._is_deref(lv):
                self._maybe_access(lv, target, sp, use)
                return
        sp = self.u.span_of(arg)
        pointee = arg.type.get_canonical().get_pointee()
        if sp is None or pointee.kind == TK.INVALID:
            return
        root = self._root(target)
        space = self._space(root)
        if space in ("local", "constant"):
            return
        self.p.accesses.append(Access(sp, use, space, root.spelling if root is not None else "", self.fn,
                                      pointee.spelling, pointee.get_canonical().get_size(),
                                      self.u.source(sp.file).text(sp.start, sp.end), form="address",
                                      align=max(pointee.get_canonical().get_align(), 0)))

    # -- operators -----------------------------------------------------------
    @staticmethod
    def _type_class(t: cindex.Type) -> str:
        t = t.get_canonical()
        if t.kind == TK.BOOL:
            return "bool"
        if t.kind in (TK.FLOAT, TK.DOUBLE, TK.LONGDOUBLE, TK.HALF):
            return "float"
        if t.kind in (TK.CHAR_U, TK.UCHAR, TK.USHORT, TK.UINT, TK.ULONG, TK.ULONGLONG, TK.CHAR_S, TK.SCHAR,
                      TK.SHORT, TK.INT, TK.LONG, TK.LONGLONG, TK.ENUM, TK.CHAR16, TK.CHAR32, TK.WCHAR):
            return "int"
        if t.kind == TK.POINTER:
            return "pointer"
        return "other"

    def _operator(self, c: cindex.Cursor, sp: Span) -> None:
        kids = list(c.get_children())
        src = self._src(sp)
        if c.kind == CK.UNARY_OPERATOR:
            if len(kids) != 1:
                return
            op, prefix = self._unop(c)
            osp = self.u.span_of(kids[0])
            if osp is None or op not in ("++", "--", "-", "!", "~"):
                return
            tok = src.token_at_or_after(sp.start) if prefix else src.token_before(sp.end)
            if tok is None or tok.spelling != op:
                return
            opsp = Span(sp.file, tok.offset, tok.offset + len(op), *src.line_col(tok.offset))
            self.p.operators.append(Operator(op, 1, sp, opsp, (osp,), (self._type_class(kids[0].type),),
                                             prefix, self.fn))
            return
        if len(kids) != 2:
            return
        a, b = self.u.span_of(kids[0]), self.u.span_of(kids[1])
        if a is None or b is None:
            return
        tok = src.token_at_or_after(a.end)
        if tok is None or tok.offset >= b.start:
            return
        opsp = Span(sp.file, tok.offset, tok.offset + len(tok.spelling), *src.line_col(tok.offset))
        self.p.operators.append(Operator(tok.spelling, 2, sp, opsp, (a, b),
                                         (self._type_class(kids[0].type), self._type_class(kids[1].type)),
                                         False, self.fn))

    def _index_ref(self, c: cindex.Cursor, sp: Span) -> None:
        base = next(iter(c.get_children()), None)
        base = _strip(base) if base is not None else None
        if base is None or base.kind != CK.DECL_REF_EXPR or base.spelling not in ("threadIdx", "blockIdx"):
            return
        if c.spelling in ("x", "y", "z"):
            self.p.index_refs.append(IndexRef(base.spelling, c.spelling, sp, self.fn))

    def _subscript(self, c: cindex.Cursor, sp: Span) -> None:
        kids = [k for k in c.get_children() if k.kind != CK.TYPE_REF]
        if len(kids) != 2:
            return
        root = self._root(c)
        idx = self.u.span_of(kids[1])
        if idx is not None:
            self.p.subscripts.append(Subscript(sp, idx, self._space(root),
                                               root.spelling if root is not None else "", self.fn))

    # -- memory accesses -----------------------------------------------------
    def _returns_reference(self, c: cindex.Cursor) -> bool:
        """A call of a function of the program that returns an lvalue reference (`v[i]` of a view's
        `int &operator[](int)`, `m(r, c)`, `at(i)`): the call names the memory it returns, wherever
        that is (checked at run time); an assignment operator's result is its own operand."""
        if c.kind != CK.CALL_EXPR:
            return False
        ref = c.referenced
        if ref is None or ref.kind not in (CK.FUNCTION_DECL, CK.CXX_METHOD, CK.FUNCTION_TEMPLATE) or \
                ref.result_type.kind != TK.LVALUEREFERENCE:
            return False
        name = ref.spelling
        if name.startswith("operator") and (name.endswith("=") and name not in ("operator==", "operator!=", "operator<=",
                                                                                 "operator>=")
                                             or name in ("operator<<", "operator>>", "operator++", "operator--")):
            return False
        f = ref.location.file
        return f is not None and self.u.is_user_file(f.name)

    def _through_call(self, c: cindex.Cursor) -> bool:
        """Does the lvalue chain c (a[i].f, *p, v(i).x) reach memory through a call's returned reference?"""
        seen = 0
        while c is not None and seen < 64:
            seen += 1
            c = _strip(c)
            if self._returns_reference(c):
                return True
            if c.kind not in (CK.MEMBER_REF_EXPR, CK.ARRAY_SUBSCRIPT_EXPR, CK.PAREN_EXPR):
                return False
            c = next((k for k in c.get_children() if k.kind != CK.TYPE_REF), None)
        return False

    def _is_deref(self, c: cindex.Cursor) -> bool:
        if c.kind == CK.CALL_EXPR:
            return self._returns_reference(c)
        if c.kind == CK.DECL_REF_EXPR:   # a __shared__ or __device__ scalar (or struct) variable
            ref = c.referenced
            if self._through_reference(ref):
                return True
            if ref is None or ref.kind != CK.VAR_DECL or ref.type.get_canonical().kind in (
                    TK.CONSTANTARRAY, TK.INCOMPLETEARRAY, TK.DEPENDENTSIZEDARRAY):
                return False
            f = ref.location.file
            if f is None or not self.u.is_user_file(f.name):   # threadIdx and other built-ins
                return False
            return self._space(ref) in ("shared", "global", "constant")
        if c.kind == CK.ARRAY_SUBSCRIPT_EXPR:
            return c.type.get_canonical().kind not in (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY,
                                                       TK.VARIABLEARRAY, TK.DEPENDENTSIZEDARRAY)
        if c.kind == CK.UNARY_OPERATOR:
            op, prefix = self._unop(c)
            return op == "*" and prefix
        if c.kind == CK.MEMBER_REF_EXPR:
            if self._member_arrow(c):
                return True
            base = next(iter(c.get_children()), None)
            return base is not None and self._is_deref(_strip(base))
        return False

    def _through_reference(self, ref: cindex.Cursor | None) -> bool:
        """A variable or parameter of the program declared as a reference (`int &r = a[i]`, `int &x`,
        `for (auto &v : s)`): using it reaches whatever it is bound to (an array's reference names
        the array, whose elements are the accesses)."""
        if ref is not None and ref.kind == CK.UNEXPOSED_DECL and ref.hash in self._ref_bindings:
            return True   # a name of `auto &[x, y] = s[i]`: bound into s[i]
        if ref is None or ref.kind not in (CK.VAR_DECL, CK.PARM_DECL) or ref.type.kind not in _REFERENCES:
            return False
        if ref.type.get_pointee().get_canonical().kind in (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY, TK.FUNCTIONPROTO,
                                                          TK.DEPENDENTSIZEDARRAY, TK.VARIABLEARRAY):
            return False
        f = ref.location.file
        return f is not None and self.u.is_user_file(f.name) and not ref.spelling.startswith("__")

    def _local_object(self, arg: cindex.Cursor) -> bool:
        """Does an address argument name a whole local object of the function it is in: `&v` (local_variable),
        or `a` (a local array)?"""
        c = _strip(arg)
        if c.kind == CK.UNARY_OPERATOR and self._unop(c) == ("&", True):
            kids = [k for k in c.get_children() if k.kind != CK.TYPE_REF]
            return len(kids) == 1 and local_variable(kids[0])
        return local_variable(c) and c.referenced.type.get_canonical().kind == TK.CONSTANTARRAY

    def _root(self, c: cindex.Cursor) -> cindex.Cursor | None:
        """The variable an lvalue chain starts from (a[i].f -> a)."""
        seen = 0
        while c is not None and seen < 64:
            seen += 1
            c = _strip(c)
            if c.kind == CK.DECL_REF_EXPR:
                return c.referenced
            if c.kind == CK.CXX_THIS_EXPR:
                return None
            kids = [k for k in c.get_children() if k.kind != CK.TYPE_REF]
            if not kids:
                return None
            if c.kind == CK.ARRAY_SUBSCRIPT_EXPR:
                # base is whichever operand has pointer/array type (i[a] is legal)
                c = next((k for k in kids if _strip(k).type.get_canonical().kind in
                          (TK.POINTER, TK.CONSTANTARRAY, TK.INCOMPLETEARRAY)), kids[0])
            elif c.kind == CK.BINARY_OPERATOR:  # pointer arithmetic p + i
                c = next((k for k in kids if k.type.get_canonical().kind == TK.POINTER), kids[0])
            else:
                c = kids[0]
            # a pointer loaded from memory (`p[i][0]` of `int *p[2]`, `s.d[i]`, `t[i]->x`, `*q[i]`): the
            # access lands wherever it points, not in the variable it was loaded from
            nxt = _strip(c)
            if nxt.kind in _LOADED_POINTERS and nxt.type.get_canonical().kind == TK.POINTER and \
                    (nxt.kind != CK.UNARY_OPERATOR or self._unop(nxt) == ("*", True)):
                return None
        return None

    def _space(self, root: cindex.Cursor | None) -> str:
        if root is None:
            return "pointer"
        kinds = _attribute_kinds(root)
        if CK.CUDASHARED_ATTR in kinds:
            return "shared"
        if CK.CUDACONSTANT_ATTR in kinds:
            return "constant"
        if CK.CUDADEVICE_ATTR in kinds and root.kind == CK.VAR_DECL:
            return "global"
        if root.kind == CK.VAR_DECL and root.type.get_canonical().kind in (TK.CONSTANTARRAY,):
            return "local"
        return "pointer"

    def _maybe_access(self, c: cindex.Cursor, parent: cindex.Cursor | None, sp: Span, use: str | None = None) -> None:
        """Record the access c makes, if it is one (`use`: how it is used, where the caller knows:
        the lvalue a load or store intrinsic is given the address of)."""
        if not self._is_deref(c) or (sp.file, sp.start, sp.end) in self._atomic_objects:
            return
        # a deref that is the base of `.member` is represented by the member access
        if use is None and parent is not None and parent.kind == CK.MEMBER_REF_EXPR and not self._member_arrow(parent):
            return
        ctype = c.type.get_canonical()
        if ctype.kind in (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY, TK.FUNCTIONPROTO):
            return
        use = use or self._use(c)
        if use is None:
            return
        through_call = self._through_call(c)
        root = None if through_call else self._root(c)
        space = self._space(root)
        if space == "local":
            return
        size, spelling = ctype.get_size(), c.type.spelling
        if size < 0 and c.kind == CK.ARRAY_SUBSCRIPT_EXPR and root is not None:
            # an array whose bounds depend on a template argument: `As[ty][k]` of `float As[B][B]`
            # has the element's size; fewer subscripts than dimensions name a row, not an access
            elem, rank = root.type, 0
            while elem.kind in (TK.CONSTANTARRAY, TK.DEPENDENTSIZEDARRAY, TK.INCOMPLETEARRAY) and rank < 16:
                elem, rank = elem.element_type, rank + 1
            depth, e = 0, c
            while e is not None and e.kind == CK.ARRAY_SUBSCRIPT_EXPR and depth < 16:
                depth += 1
                kids = [k for k in e.get_children() if k.kind != CK.TYPE_REF]
                e = _strip(kids[0]) if kids else None
            if rank and depth < rank:
                return
            if rank and depth == rank and elem.get_canonical().get_size() > 0:
                size, spelling = elem.get_canonical().get_size(), elem.spelling
        bound, base = ("", None) if through_call else self._bound(c)
        self.p.accesses.append(Access(sp, use, space, root.spelling if root is not None else "",
                                      self.fn, spelling, size,
                                      self.u.source(sp.file).text(sp.start, sp.end), bound, base,
                                      form="call" if through_call else "lvalue",
                                      volatile=c.type.is_volatile_qualified(), align=_align(c, ctype)))

    def _bound(self, c: cindex.Cursor) -> tuple[str, Span | None]:
        """What bounds a subscript a[i] (or a[i][j] on an array) whose base is a variable."""
        if c.kind != CK.ARRAY_SUBSCRIPT_EXPR:
            return "", None
        seen = 0
        while c.kind == CK.ARRAY_SUBSCRIPT_EXPR and seen < 16:
            seen += 1
            kids = [k for k in c.get_children() if k.kind != CK.TYPE_REF]
            if len(kids) != 2:
                return "", None
            base = _strip(kids[0])
            kind = base.type.get_canonical().kind
            if kind == TK.DEPENDENTSIZEDARRAY:   # `float As[B][B]` in a template: sizeof(As) once instantiated
                kind = TK.CONSTANTARRAY
            if kind not in (TK.POINTER, TK.CONSTANTARRAY, TK.INCOMPLETEARRAY):
                return "", None   # i[a], or a base of another kind
            if base.kind == CK.ARRAY_SUBSCRIPT_EXPR and kind == TK.CONSTANTARRAY:
                c = base   # a[i][j] on a 2-D array: the whole array bounds it
                continue
            if base.kind != CK.DECL_REF_EXPR or base.referenced is None or \
                    base.referenced.kind not in (CK.VAR_DECL, CK.PARM_DECL):
                return "", None
            sp = self.u.span_of(base)
            if sp is None or sp.file != self.u.span_of(c).file:
                return "", None
            space = self._space(base.referenced)
            if kind == TK.POINTER:   # a local variable or parameter (reading it again is free)
                return ("pointer", sp) if space == "pointer" else ("", None)
            if kind == TK.CONSTANTARRAY and space in ("shared", "global"):
                return "array", sp
            if kind == TK.INCOMPLETEARRAY and space == "shared":
                return "dynamic", sp
            return "", None
        return "", None

    def _use(self, c: cindex.Cursor) -> str | None:
        """How the lvalue c is used: 'read', 'write', 'rmw', or None (address only)."""
        parents = self._parents(c)
        child = c
        for p in parents:
            if p.kind == CK.PAREN_EXPR:
                child = p
                continue
            if p.kind == CK.UNEXPOSED_EXPR:
                return "read"   # an implicit cast of an lvalue: lvalue-to-rvalue
            if p.kind in (CK.CSTYLE_CAST_EXPR, CK.CXX_STATIC_CAST_EXPR, CK.CXX_FUNCTIONAL_CAST_EXPR):
                return "read"
            if p.kind == CK.BINARY_OPERATOR:
                first = next(iter(p.get_children()))
                if first == child and self._binop(p) == "=":
                    return "write"
                if self._binop(p) == ",":
                    return None
                return "read"
            if p.kind == CK.COMPOUND_ASSIGNMENT_OPERATOR:
                first = next(iter(p.get_children()))
                return "rmw" if first == child else "read"
            if p.kind == CK.UNARY_OPERATOR:
                op, _ = self._unop(p)
                if op in ("++", "--"):
                    return "rmw"
                if op == "&":
                    return None
                return "read"
            if p.kind == CK.CXX_UNARY_EXPR:  # sizeof / alignof: unevaluated
                return None
            if p.kind == CK.RETURN_STMT:   # (a function that returns a reference binds it: its caller accesses)
                return None if self.returns_reference else "read"
            if p.kind == CK.VAR_DECL or _is_decomposition(p):   # (`auto &[x, y] = s[i]` binds, as `int &r = a[i]`)
                return None if p.type.kind in (TK.LVALUEREFERENCE, TK.RVALUEREFERENCE) else "read"
            if p.kind == CK.CALL_EXPR and p.spelling.startswith("operator"):
                args = list(p.get_arguments())
                if args and _strip(args[0]) == child or (args and args[0] == child):
                    return "write" if p.spelling == "operator=" else "rmw"
                return "read"
            if p.kind == CK.CALL_EXPR and p.referenced is not None and \
                    p.referenced.kind in (CK.PARM_DECL, CK.VAR_DECL, CK.FIELD_DECL):
                return "read"   # an argument of a call through an object or pointer (`f(data[i])`, f of a
                                # template parameter's type): what the callee takes is not known here
            if p.kind == CK.CALL_EXPR and p.referenced is None and (self._by_value(p, child) or
                                                                   not self._maybe_reference(p, child)):
                # an argument of a call a template leaves unresolved, to a value parameter, or to a
                # callable no function of the program names (a functor or lambda of a template
                # parameter's type: `f(data[i])`): read where it is passed
                return "read"
            if p.kind in (CK.CALL_EXPR, CK.MEMBER_REF_EXPR, CK.INIT_LIST_EXPR):
                return None if p.kind != CK.INIT_LIST_EXPR else "read"
            return "read"
        return None

    def _value_params(self, call: cindex.Cursor, arg: cindex.Cursor) -> list[bool] | None:
        """For the functions of the program an unresolved call names, whether each takes `arg` by
        value at its position (False: by reference, or no parameter there); None where the call names
        no function (a member call, a callee with no name)."""
        kids = list(call.get_children())
        if not kids or arg not in kids[1:]:
            return None
        at = kids[1:].index(arg)
        name, obj = dependent_callee(kids[0])
        if not name or obj is not None:
            return None
        found = []
        for fn in self.p.cursors.values():
            if fn.spelling != name or fn.kind not in (CK.FUNCTION_DECL, CK.FUNCTION_TEMPLATE, CK.CXX_METHOD):
                continue
            parms = [k for k in fn.get_children() if k.kind == CK.PARM_DECL]
            found.append(at < len(parms) and parms[at].type.kind not in _REFERENCES and "&" not in parms[at].type.spelling)
        return found

    def _maybe_reference(self, call: cindex.Cursor, arg: cindex.Cursor) -> bool:
        """Might the callee an unresolved call names take `arg` by reference (some function of that
        name does, or the call names none)?"""
        found = self._value_params(call, arg)
        return found is None or not all(found)

    def _by_value(self, call: cindex.Cursor, arg: cindex.Cursor) -> bool:
        """Is `arg` passed by value to the function a dependent call names (`f<T>(a[i])`, where the
        template gives the argument no conversion to show it)? Only where the program defines that
        name and every definition takes a value, not a reference, at that position."""
        found = self._value_params(call, arg)
        return bool(found) and all(found)

    def _parents(self, c: cindex.Cursor) -> list[cindex.Cursor]:
        return self._parent_chain.get(c.hash, [])

    # -- control flow --------------------------------------------------------
    def _if(self, c: cindex.Cursor, sp: Span) -> None:
        kids = list(c.get_children())
        src = self._src(sp)
        then_i = len(kids) - 1
        if len(kids) >= 3:
            tsp = self.u.span_of(kids[-2])
            nxt = src.token_at_or_after(tsp.end) if tsp else None
            if nxt is not None and nxt.spelling == ";":   # a then-part without braces: `if (c) s; else`
                nxt = src.token_at_or_after(nxt.end)
            if nxt is not None and nxt.spelling == "else":
                then_i = len(kids) - 2
        then = self.u.span_of(kids[then_i])
        els = self.u.span_of(kids[then_i + 1]) if then_i + 1 < len(kids) else None
        cond = self.u.span_of(kids[then_i - 1]) if then_i >= 1 else None
        head = [t.spelling for t in src.tokens_in(sp.start, min(sp.end, sp.start + 64))][:2]
        plain = then_i >= 1 and kids[then_i - 1].kind != CK.VAR_DECL and head[1:] != ["constexpr"]
        self.p.branches.append(Branch("if", sp, cond, (then, els), self.fn, plain))

    def _loop(self, c: cindex.Cursor, sp: Span) -> None:
        kids = [k for k in c.get_children()]
        kind = {CK.FOR_STMT: "for", CK.WHILE_STMT: "while", CK.DO_STMT: "do",
                CK.CXX_FOR_RANGE_STMT: "range-for"}[c.kind]
        src = self._src(sp)
        cond = None
        plain = True
        body_cur = kids[0] if kind == "do" else kids[-1]
        if kind == "do":
            body, cond = self.u.span_of(kids[0]), self.u.span_of(kids[-1])
        elif kind == "while":
            body, cond = self.u.span_of(kids[-1]), self.u.span_of(kids[-2])
            plain = kids[-2].kind != CK.VAR_DECL and not (len(kids) > 2 and kids[-3].kind == CK.VAR_DECL)
        elif kind == "range-for":
            body = self.u.span_of(kids[-1])
        else:
            body = self.u.span_of(kids[-1])
            semis, depth = [], 0
            for t in src.tokens_in(sp.start, body.start):
                if t.spelling == "(":
                    depth += 1
                elif t.spelling == ")":
                    depth -= 1
                elif t.spelling == ";" and depth == 1:
                    semis.append(t.offset)
            if len(semis) == 2:
                for k in kids[:-1]:
                    ksp = self.u.span_of(k)
                    if ksp is not None and semis[0] < ksp.start < semis[1]:
                        cond = ksp
                        plain = k.kind != CK.VAR_DECL
        self.p.loops.append(Loop(kind, sp, cond, body, self.fn, plain,
                                 body_cur.kind == CK.COMPOUND_STMT))


def _record_parents(walker: _Walker, unit: ParsedUnit) -> None:
    """Map each expression cursor (by hash) to its chain of ancestors, nearest first."""
    chains: dict[int, list[cindex.Cursor]] = {}

    def visit(c: cindex.Cursor, stack: list[cindex.Cursor]) -> None:
        if stack:
            chains[c.hash] = stack[::-1][:8]
        stack.append(c)
        for k in c.get_children():
            visit(k, stack)
        stack.pop()

    for top in unit.tu.cursor.get_children():
        f = top.location.file
        if f is not None and unit.is_user_file(f.name):
            visit(top, [])
    walker._parent_chain = chains


def query(unit: ParsedUnit) -> Program:
    """Everything the planners need to know about `unit`, in source order."""
    prog = Program(unit)
    w = _Walker(unit, prog)
    _record_parents(w, unit)
    w.fn, w.device = "", False
    w.run()
    for lst in (prog.launches, prog.accesses, prog.atomics, prog.barriers, prog.branches,
                prog.loops, prog.shared, prog.api_calls, prog.operators, prog.index_refs, prog.subscripts):
        lst.sort(key=lambda r: (r.span.file, r.span.start, -r.span.end))
    return prog
