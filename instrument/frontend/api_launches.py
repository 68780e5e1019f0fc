"""Kernel launches through the runtime API, as facts the planners share.

`cudaLaunchKernel(func, grid, block, args[, shmem[, stream]])` and `cudaLaunchCooperativeKernel(...)`
(same arguments) start a kernel without `<<<...>>>`. hirace brackets them as it brackets `<<<...>>>`
launches, and cltc notes them as launches (coverage: the log a process writes at exit; mutation: the
active mutant), so each planner reads the same facts: the call, the kernel's name and the arguments'
text on one line (an edit inserts no line break), shared memory and stream `0` where the call leaves
them out.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .query import ApiCall, Program
from .rewrite import one_line

API_LAUNCHES = ("cudaLaunchKernel", "cudaLaunchCooperativeKernel")


@dataclass(frozen=True)
class ApiLaunch:
    call: ApiCall
    kernel: str         # the kernel's name as the first argument names it (`kernel` where it names none)
    func: str           # the arguments' text, on one line
    grid: str
    block: str
    shmem: str
    stream: str

    @property
    def cooperative(self) -> bool:
        return self.call.name == "cudaLaunchCooperativeKernel"


def api_launches(prog: Program) -> list[ApiLaunch]:
    """The program's calls of the launch functions that give at least function, grid, block and args."""
    out = []
    for call in prog.api_calls:
        if call.name not in API_LAUNCHES or len(call.args) < 4:
            continue
        s = prog.unit.source(call.span.file)
        args = [one_line(s.text(a.start, a.end)) for a in call.args] + ["0", "0"]
        # `(void *)k`, `k`, `k<T>`: the last name before any template arguments
        name = re.findall(r"[A-Za-z_]\w*", re.sub(r"<.*", "", re.sub(r"^\s*\([^()]*\)\s*", "", args[0])))
        out.append(ApiLaunch(call, name[-1] if name else "kernel", *args[:3], args[4], args[5]))
    return out
