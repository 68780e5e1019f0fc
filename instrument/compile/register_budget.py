"""A kernel keeps its occupancy under instrumentation, where the program can see it.

Instrumented code needs more registers than the kernel as written, so fewer of its blocks fit on a
multiprocessor. A program sees that where it asks the occupancy API (`cudaOccupancyMaxPotentialBlockSize`
prints a different grid: simpleOccupancy, reductionMultiBlockCG) and where it launches cooperatively
(a grid sized for the plain kernel no longer fits, and the launch fails). A unit that does either
(`wanted`) is compiled once as written to learn each kernel's registers per architecture (`measure`:
ptxas's report), and each of its kernels is then capped (`__maxnreg__`, per architecture through
runtime/include/cudacommon/kernel_regs.h) at the most registers that give the same number of resident
blocks as the plain count for every block size (`occupancy_cap`), by the occupancy calculator's rules
(registers allocated per warp in units of 256, in 4 sub-partitions of 64K registers per
multiprocessor) under every warp and block limit of NVIDIA's architectures, so the cap holds on any of
them. What does not fit the cap spills to local memory: slower, never different.

Not capped, with the reason in the build's warnings: a kernel with its own `__launch_bounds__` or
`__maxnreg__` (nvcc refuses both on one kernel; its bounds already limit its registers), one whose
name a macro writes, and a kernel ptxas did not report (defined in another unit).
"""
from __future__ import annotations

import functools
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..backends.process import run_process
from .. import reaper

# a unit whose kernels' occupancy the program sees: it asks the occupancy API, or launches cooperatively
WANTS = re.compile(rb"\bcu(?:da)?Occupancy\w+|\bcudaLaunchCooperativeKernel\w*|\bcudaLaunchAttributeCooperative\b|"
                   rb"\bthis_grid\s*\(")
_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(?:sm|compute)_(\d+)[a-z]?'")
_USED = re.compile(r"Used (\d+) registers")
_OWN_CAP = re.compile(rb"\b(?:__launch_bounds__|__maxnreg__|launch_bounds|maxnreg)\b")

# the multiprocessor limits of NVIDIA's architectures since Maxwell: (resident warps, resident blocks)
_LIMITS = ((32, 16), (48, 16), (48, 24), (48, 32), (64, 16), (64, 32))
_REGISTER_FILE, _SUB_PARTITIONS, _UNIT, _MAX_PER_THREAD = 65536, 4, 256, 255


def wanted(text: bytes) -> bool:
    return WANTS.search(text) is not None


def blocks_per_sm(regs: int, block: int, warps_limit: int, blocks_limit: int) -> int:
    """Resident blocks of `block` threads using `regs` registers each (cuda_occupancy.h's rules)."""
    warps = -(-block // 32)
    per_warp = -(-regs * 32 // _UNIT) * _UNIT
    assumed = per_warp * (-(-warps // _SUB_PARTITIONS) * _SUB_PARTITIONS)
    if regs > _MAX_PER_THREAD or assumed > _REGISTER_FILE or per_warp * warps > _REGISTER_FILE:
        return 0
    by_regs = (_REGISTER_FILE // _SUB_PARTITIONS // per_warp) * _SUB_PARTITIONS // warps if per_warp else blocks_limit
    return min(blocks_limit, warps_limit // warps, by_regs)


@functools.cache
def occupancy_cap(regs: int) -> int:
    """The most registers a kernel may use and keep, for every block size and every architecture's
    limits, the resident blocks that `regs` registers give."""
    def same(r: int) -> bool:
        return all(blocks_per_sm(r, b, w, n) == blocks_per_sm(regs, b, w, n)
                   for b in range(32, 1025, 32) for w, n in _LIMITS)
    cap = max(regs, 1)
    while cap < _MAX_PER_THREAD and same(cap + 1):
        cap += 1
    return cap


def parse_report(text: str) -> dict[str, dict[int, int]]:
    """ptxas -v's report: registers by entry (its symbol) and architecture (__CUDA_ARCH__'s value)."""
    out: dict[str, dict[int, int]] = {}
    entry = None
    for line in text.splitlines():
        m = _ENTRY.search(line)
        if m:
            entry = (m.group(1), int(m.group(2)) * 10)
            continue
        m = _USED.search(line)
        if m and entry is not None:
            out.setdefault(entry[0], {})[entry[1]] = int(m.group(1))
            entry = None
    return out


def _demangler(compiler: str) -> str | None:
    beside = Path(shutil.which(compiler) or compiler).resolve().parent / "cu++filt"
    return str(beside) if beside.is_file() else shutil.which("cu++filt") or shutil.which("c++filt")


def kernel_name(demangled: str) -> str:
    """`void ns::k<4>(float*)` -> `ns::k`: a kernel's qualified name without template arguments."""
    anonymous = "(anonymous namespace)"
    depth, name = 0, []
    for ch in demangled.replace(anonymous, "\0"):
        if ch == "(" and depth == 0:
            break
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            name.append(ch)
    return "".join(name).strip().rsplit(" ", 1)[-1].replace("\0", anonymous)


def qualified(cursor) -> str:
    """A kernel's qualified name from its libclang cursor (namespaces and classes, as demangled)."""
    parts = [cursor.spelling]
    owner = cursor.semantic_parent
    while owner is not None and owner.kind.name in ("NAMESPACE", "CLASS_DECL", "STRUCT_DECL", "CLASS_TEMPLATE"):
        parts.append(owner.spelling or "(anonymous namespace)")
        owner = owner.semantic_parent
    return "::".join(reversed(parts))


def measure(compile_cmd: list[str], scratch: Path) -> dict[str, dict[int, int]]:
    """Compile the unit as written (the user's own command, its object into scratch) with ptxas's
    report on: each kernel's registers by qualified name and architecture (the most over a template's
    instances and a name's overloads); {} where that compile fails (the build then says why)."""
    scratch.mkdir(parents=True, exist_ok=True)
    res = run_process([*compile_cmd, "-Xptxas", "-v", "-o", str(scratch / "as-written.o")],
                      env=reaper.scratch_env())
    if res.returncode != 0:
        return {}
    by_symbol = parse_report(res.stdout + res.stderr)
    symbols = sorted(by_symbol)
    names = list(symbols)
    mangled = [s for s in symbols if s.startswith("_Z")]
    tool = _demangler(compile_cmd[0])
    if mangled and tool is not None:
        out = subprocess.run([tool], input="\n".join(mangled) + "\n", capture_output=True, text=True,
                             env=reaper.scratch_env())
        lines = out.stdout.splitlines()
        if out.returncode == 0 and len(lines) == len(mangled):
            demangled = dict(zip(mangled, lines))
            names = [demangled.get(s, s) for s in symbols]
    regs: dict[str, dict[int, int]] = {}
    for symbol, name in zip(symbols, names):
        mine = regs.setdefault(kernel_name(name), {})
        for arch, n in by_symbol[symbol].items():
            mine[arch] = max(mine.get(arch, 0), n)
    return regs


@dataclass
class RegisterBudget:
    """A planner (instrument/compile/pipeline.py): caps each kernel of the unit that `regs` measured.
    `limit`: the compile's register limit (-maxrregcount), else 255. `default` is what the unit's
    compile must take as its -maxrregcount (`flags`): the lowest cap, since a kernel may call a
    function compiled apart (the runtime's checks, and every function under -rdc), and ptxas refuses
    a kernel that calls a function compiled with more registers than the kernel's own cap."""
    regs: dict[str, dict[int, int]]
    limit: int = _MAX_PER_THREAD
    caps: dict[str, dict[int, int]] = field(init=False)
    default: int = field(init=False)

    def __post_init__(self):
        self.caps = {name: {arch: occupancy_cap(n) for arch, n in arches.items()}
                     for name, arches in self.regs.items()}
        self.default = min([self.limit] + [c for arches in self.caps.values() for c in arches.values()])

    def flags(self) -> list[str]:
        return [f"-maxrregcount={self.default}"]

    def __call__(self, prog, plan) -> None:
        included = False
        for k in prog.kernels:
            cursor = prog.cursors.get((k.body.file, k.body.start))
            name = qualified(cursor) if cursor is not None else k.name
            arches = self.caps.get(name)
            if not arches:
                continue
            data = prog.unit.source(k.span.file).data
            header = data[k.span.start:k.body.start]
            at = re.search(rb"\b" + re.escape(k.name.encode()) + rb"\s*\(", header)
            where = f"{k.span.where()}: kernel '{name}'"
            if _OWN_CAP.search(header):
                plan.warnings.append(f"{where} sets its own register bounds: its occupancy under instrumentation "
                                     f"may differ from the plain build's")
                continue
            if at is None or header[:at.start()].rstrip().endswith(b"::") or prog.unit.macro_at(k.span) is not None:
                plan.warnings.append(f"{where}: its register budget could not be written (its name is not "
                                     f"plainly in its definition): its occupancy may differ from the plain build's")
                continue
            caps = ", ".join(f"{arch}, {cap}" for arch, cap in sorted(arches.items()))
            text = f"__maxnreg__((::cctk::kernel_regs<{self.default}, {caps}>::value)) "
            if plan.insert(k.span, k.span.start + at.start(), text, f"register budget of kernel {name}", quiet=text):
                included = True
        if included:
            plan.add_prelude(prog.unit.main, "#include <cudacommon/kernel_regs.h>\n")


_MAXRREG = re.compile(r"^-?-maxrregcount(?:=(\d+))?$")


def without_register_limit(args) -> list[str]:
    """A compile's options without its -maxrregcount (either spelling, with its value)."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        m = _MAXRREG.match(a)
        if m:
            skip = m.group(1) is None
            continue
        out.append(a)
    return out


def register_limit(args: list[str]) -> int:
    """The -maxrregcount a compile line sets (its last), else 255 (none)."""
    limit = _MAX_PER_THREAD
    for n, a in enumerate(args):
        m = _MAXRREG.match(a)
        if m:
            value = m.group(1) or (args[n + 1] if n + 1 < len(args) else "")
            if value.isdigit():
                limit = int(value)
    return limit
