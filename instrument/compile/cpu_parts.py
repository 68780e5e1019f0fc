"""The optional parts of the cpu backend's emulation a program needs, from its parse's facts.

A part the program's units do not use is left out of every unit's build (a -D of cudacommon/protocol.h's
build macros), which makes each build cheaper: CUDA graphs and stream capture (cudaemu/graphs.h, and hirace's
host_graphs.h under it) cost every unit their code whether or not it calls them. Decided once for a whole
program (pipeline.build: all its units in one compile), never for one unit of a project's own build (the
launcher: its other units are not known), since the units of one program must agree."""
from __future__ import annotations

import functools
import re

from runtime import include_dir

from ..frontend.query import Program
from ..protocol import Macro, define

_DEFINED = re.compile(r"^inline cudaError_t\s+(cuda[A-Z]\w*)\s*\(", re.M)


@functools.lru_cache(maxsize=1)
def graph_api() -> frozenset[str]:
    """The runtime functions cudaemu/graphs.h defines (graphs, stream capture): a call of one needs it."""
    names = frozenset(_DEFINED.findall((include_dir() / "cudaemu" / "graphs.h").read_text()))
    if not names:
        raise RuntimeError("cudaemu/graphs.h defines no runtime function: cpu_parts.graph_api reads it wrong")
    return names


def uses_graphs(programs: list[Program]) -> bool:
    """Whether some unit calls a function of the graph or capture API."""
    api = graph_api()
    return any(c.name in api for p in programs for c in p.api_calls)


def defines(programs: list[Program]) -> list[str]:
    """The -D values that leave out what no unit of the program (every one of `programs`) uses."""
    return [] if uses_graphs(programs) else [define(Macro.CUDAEMU_GRAPHS, 0)]
