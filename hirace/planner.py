"""Plan hirace's edits for one translation unit, and keep the site table.

- every access to memory that may be global or shared, in kernels and the
  device functions they call, goes through a check before it happens:
  `a[i]` -> `(*::hirace::rd(&(a[i]), 7u))` (wr for writes, rmw for `+=`/`++`);
- atomics check their address with their scope: `atomicAdd(&a[i], 1)` ->
  `atomicAdd(::hirace::atomic_device(&a[i], 8u), 1)`;
- barriers advance the thread's clocks after they complete;
- launches are bracketed by the host runtime (shadow, clocks, race log);
- cudaMalloc/cudaMallocManaged/cudaMallocHost/cudaFree are tracked, and
  `__device__` variables are registered.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from instrument.query import Program
from instrument.rewrite import EditPlan

from .config import Config

ALLOCATORS = {"cudaMalloc", "cudaMallocManaged", "cudaMallocHost", "cudaHostAlloc"}


@dataclass(frozen=True)
class Site:
    id: int
    file: str
    line: int
    column: int
    kind: str        # read, write, rmw, atomic
    text: str
    function: str
    variable: str
    space: str       # shared, global, pointer (decided at run time)


class HiracePlanner:
    def __init__(self, config: Config | None = None):
        self.config = config or Config()
        self.sites: list[Site] = []
        self.min_size = 8
        self.skipped: list[str] = []

    def _site(self, span, kind, text, function, variable, space) -> int:
        sid = len(self.sites)
        self.sites.append(Site(sid, span.file, span.line, span.col, kind, text, function, variable, space))
        return sid

    def granularity(self) -> int:
        g = self.config.granularity or max(1, min(4, self.min_size))
        return g

    def __call__(self, prog: Program, plan: EditPlan) -> None:
        unit = prog.unit
        src = unit.source
        reach = prog.device_reachable()
        ignore = set(self.config.ignore)
        monitor = set(self.config.monitor)
        plan.add_prelude(unit.main, '#include "hirace/host.h"')
        for a in prog.accesses:
            if a.function not in reach or a.space in ("constant", "local") or a.base in ignore:
                continue
            if monitor and a.base not in monitor:
                continue
            fn = {"read": "rd", "write": "wr", "rmw": "rmw"}[a.kind]
            sid = self._site(a.span, a.kind, a.text, a.function, a.base, a.space)
            if plan.wrap(a.span, f"(*::hirace::{fn}(&(", f"), {sid}u))", f"hirace check of {a.text}"):
                if a.size > 0:
                    self.min_size = min(self.min_size, a.size)
        for at in prog.atomics:
            if at.function not in reach or at.address is None:
                continue
            text = src(at.span.file).text(at.span.start, at.span.end)
            sid = self._site(at.span, "atomic", text, at.function, "", "pointer")
            fn = "atomic_block" if at.scope == "block" else "atomic_device"
            plan.wrap(at.address, f"::hirace::{fn}(", f", {sid}u)", f"hirace check of {at.name}")
        for b in prog.barriers:
            if b.function not in reach:
                continue
            if b.name == "__syncwarp":
                plan.wrap(b.span, "(", ", ::hirace::after_warp_barrier())", "hirace __syncwarp clock")
            elif b.name == "__syncthreads":
                plan.wrap(b.span, "(", ", ::hirace::after_block_barrier())", "hirace __syncthreads clock")
            else:
                plan.wrap(b.span, "::hirace::after_block_barrier_value(", ")", f"hirace {b.name} clock")
        for ls in prog.launches:
            s = src(ls.span.file)
            cfg = [s.text(x.start, x.end) for x in ls.config_args] + ["0", "0"]
            callee = s.text(ls.callee.start, ls.callee.end)
            kptr = "nullptr" if ls.deduced_template else f"(const void *)({callee})"
            plan.wrap(ls.span, f'(::hirace::host::before_launch({kptr}, "{ls.kernel}", dim3({cfg[0]}), '
                               f'dim3({cfg[1]}), (size_t)({cfg[2]})), ',
                      ", ::hirace::host::after_launch())", f"hirace launch of {ls.kernel}")
        for call in prog.api_calls:
            s = src(call.span.file)
            if call.name in ALLOCATORS and len(call.args) >= 2:
                ptr, size = (s.text(x.start, x.end) for x in call.args[:2])
                name = ptr.strip().lstrip("(").rsplit(")", 1)[-1].strip().lstrip("&").strip()
                plan.wrap(call.span, "::hirace::host::track_alloc(",
                          f', (void **)({ptr}), (size_t)({size}), "{_c_string(name)}")',
                          f"hirace tracking of {call.name}")
            elif call.name == "cudaFree" and call.args:
                ptr = s.text(call.args[0].start, call.args[0].end)
                plan.wrap(call.span, f"(::hirace::host::before_free((const void *)({ptr})), ", ")",
                          "hirace tracking of cudaFree")
        regs = []
        for g in prog.globals:
            if g.space in ("device", "managed") and g.span.file == unit.main and g.name not in ignore:
                regs.append(f'static ::hirace::host::SymbolRegistrar hirace_symbol_{g.name}('
                            f'+[]() -> void * {{ void *p = nullptr; cudaGetSymbolAddress(&p, {g.name}); '
                            f'return p; }}, sizeof({g.name}), "{g.name}");')
        if regs:
            data = src(unit.main).data
            plan.insert(_end_span(unit.main, data), len(data), " " + " ".join(regs),
                        "hirace registration of __device__ variables", allow_macro=True)

    def write_sites(self, path: Path) -> None:
        path.write_text(json.dumps([asdict(s) for s in self.sites], indent=0))


def _end_span(path: str, data: bytes):
    from instrument.parse import Span
    return Span(path, len(data), len(data), data.count(b"\n") + 1, 1)


def _c_string(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')
