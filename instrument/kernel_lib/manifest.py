"""manifest.json: what a kernel-library build produced, read by the loaders in another process."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UserError
from ..output import atomic_write_text
from .signatures import KernelSig

FORMAT = 1


@dataclass
class SourceEntry:
    path: str                    # the user's .cu file (absolute)
    kernels: list[KernelSig]
    module: str = ""             # gpu: the cubin, relative to the manifest
    entries: list[str] = field(default_factory=list)   # cpu: C entry point per kernel ('' if none)


@dataclass
class Manifest:
    backend: str                 # 'cpu' | 'gpu'
    sources: list[SourceEntry]
    library: str = ""            # cpu: the shared library, relative to the manifest
    tools: list[str] = field(default_factory=list)      # coverage | mutate | amplify (what is compiled in)
    root: Path = Path(".")       # where the manifest lives (not stored)

    def source(self, path: str | Path) -> SourceEntry | None:
        want = str(Path(path).resolve())
        return next((s for s in self.sources if s.path == want), None)

    def write(self, path: Path) -> Path:
        data = {"format": FORMAT, "backend": self.backend, "library": self.library, "tools": self.tools,
                "sources": [{"path": s.path, "module": s.module, "entries": s.entries,
                             "kernels": [k.to_json() for k in s.kernels]} for s in self.sources]}
        atomic_write_text(path, json.dumps(data, indent=1) + "\n")
        return path


def read(path: str | Path) -> Manifest:
    p = Path(path)
    try:
        d = json.loads(p.read_text())
    except (OSError, ValueError) as exc:
        raise UserError(f"{p}: not a kernel-library manifest ({exc})") from None
    if d.get("format") != FORMAT:
        raise UserError(f"{p}: kernel-library manifest format {d.get('format')}, expected {FORMAT}",
                        hint="rebuild it with this version of the toolkit")
    srcs = [SourceEntry(s["path"], [KernelSig.from_json(k) for k in s["kernels"]], s.get("module", ""),
                        s.get("entries", [])) for s in d["sources"]]
    return Manifest(d["backend"], srcs, d.get("library", ""), d.get("tools", []), p.parent)
