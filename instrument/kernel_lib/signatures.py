"""What each kernel of a translation unit takes: parameter names, C types and how
a Python value becomes one (numpy dtype for pointers, range for integers)."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from clang import cindex

from ..frontend.parse import ParsedUnit

CK = cindex.CursorKind
TK = cindex.TypeKind

# scalar C type kind -> (name, numpy dtype, integer?)
SCALARS = {
    TK.BOOL: ("bool", "bool", True),
    TK.CHAR_S: ("char", "int8", True), TK.SCHAR: ("signed char", "int8", True),
    TK.CHAR_U: ("char", "uint8", True), TK.UCHAR: ("unsigned char", "uint8", True),
    TK.SHORT: ("short", "int16", True), TK.USHORT: ("unsigned short", "uint16", True),
    TK.INT: ("int", "int32", True), TK.UINT: ("unsigned int", "uint32", True),
    TK.LONG: ("long", "int64", True), TK.ULONG: ("unsigned long", "uint64", True),
    TK.LONGLONG: ("long long", "int64", True), TK.ULONGLONG: ("unsigned long long", "uint64", True),
    TK.FLOAT: ("float", "float32", False), TK.DOUBLE: ("double", "float64", False),
}


@dataclass
class Param:
    name: str
    type: str            # as written (canonical spelling)
    kind: str            # 'pointer' | 'scalar'
    dtype: str           # numpy dtype name; pointers: of the element ('' = any, for void*)
    const: bool = False  # pointer to const: copied in, never back
    elem_size: int = 0   # pointers: sizeof the element (0 unknown)


@dataclass
class KernelSig:
    name: str            # as written
    qualified: str       # ns::name
    symbol: str          # the device symbol (Itanium mangled)
    file: str
    line: int
    params: list[Param] = field(default_factory=list)
    problem: str = ""    # why Python cannot launch it ('' when it can)

    def to_json(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_json(d: dict) -> "KernelSig":
        return KernelSig(**{**d, "params": [Param(**p) for p in d["params"]]})


def _qualified(c: cindex.Cursor) -> str:
    parts = [c.spelling]
    p = c.semantic_parent
    while p is not None and p.kind != CK.TRANSLATION_UNIT:
        if p.kind == CK.NAMESPACE:
            parts.append(p.spelling or "(anonymous namespace)")
        p = p.semantic_parent
    return "::".join(reversed(parts))


def _device_symbol(c: cindex.Cursor) -> str:
    """libclang parses host-side: a kernel's mangled name is that of its host stub
    (`__device_stub__k`); the device symbol is the same name without the prefix."""
    m = c.mangled_name or ""
    return re.sub(r"(\d+)__device_stub__", lambda x: str(int(x.group(1)) - len("__device_stub__")), m)


def _param(a: cindex.Cursor, index: int) -> Param:
    t = a.type.get_canonical()
    name = a.spelling or f"#{index + 1}"
    if t.kind == TK.POINTER:
        pt = t.get_pointee()
        const = pt.is_const_qualified()
        base = pt.get_canonical()
        if base.kind == TK.VOID:
            return Param(name, t.spelling, "pointer", "", const, 0)
        if base.kind in SCALARS:
            return Param(name, t.spelling, "pointer", SCALARS[base.kind][1], const, base.get_size())
        if base.kind in (TK.RECORD, TK.ELABORATED) and base.get_size() > 0:
            return Param(name, t.spelling, "pointer", f"record{base.get_size()}", const, base.get_size())
        return Param(name, a.type.spelling, "unsupported", "")
    if t.kind in SCALARS:
        return Param(name, t.spelling, "scalar", SCALARS[t.kind][1])
    if t.kind == TK.ENUM:
        return Param(name, t.spelling, "scalar", SCALARS[t.get_declaration().enum_type.get_canonical().kind][1])
    return Param(name, a.type.spelling, "unsupported", "")


def kernel_signatures(unit: ParsedUnit, files: set[str] | None = None) -> list[KernelSig]:
    """Every kernel defined in `files` (default: the main file): kernels a test can launch."""
    files = files or {unit.main}
    out: list[KernelSig] = []

    def visit(c: cindex.Cursor) -> None:
        for k in c.get_children():
            f = k.location.file
            if f is None or f.name not in files:
                continue
            if k.kind in (CK.NAMESPACE, CK.LINKAGE_SPEC, CK.UNEXPOSED_DECL):
                visit(k)
            elif k.kind in (CK.FUNCTION_DECL, CK.FUNCTION_TEMPLATE) and k.is_definition() \
                    and any(x.kind == CK.CUDAGLOBAL_ATTR for x in k.get_children()):
                if k.kind == CK.FUNCTION_TEMPLATE:
                    out.append(KernelSig(k.spelling, _qualified(k), "", f.name, k.location.line, [],
                                         "it is a template: launch an instantiation through a non-template "
                                         "kernel that calls it"))
                    continue
                params = [_param(a, i) for i, a in enumerate(k.get_arguments())]
                bad = [p for p in params if p.kind == "unsupported"]
                problem = "" if not bad else (
                    f"parameter '{bad[0].name}' has type '{bad[0].type}', which Python launches do not "
                    "support (use pointers to numbers or structs, or number scalars)")
                out.append(KernelSig(k.spelling, _qualified(k), _device_symbol(k), f.name, k.location.line,
                                     params, problem))

    visit(unit.tu.cursor)
    return mark_overloads(out)


def mark_overloads(sigs: list[KernelSig]) -> list[KernelSig]:
    """Overloaded kernels cannot be named from Python: say so on each."""
    seen: dict[str, int] = {}
    for s in sigs:
        seen[s.qualified] = seen.get(s.qualified, 0) + 1
    for s in sigs:
        if seen[s.qualified] > 1 and not s.problem:
            s.problem = "it is overloaded: give each overload its own name"
    return sigs
