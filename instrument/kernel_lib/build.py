"""Build kernel sources into something Python can launch, instrumented by any planners.

cpu: one harness per source (harness.py) -> cpu lowering and planners -> one shared
library holding every source, so the tools' runtimes see one program, as with executables.
gpu: each source instrumented and compiled by nvcc to a cubin that pycuda loads; the tool
runtimes' device variables get external names (CLTC_KERNEL_MODULE) so that the Python
host side (cltestcheck/pycuda_host.py) can find them."""
from __future__ import annotations

from pathlib import Path

from runtime import include_dir

from ..backends import Backend, BuildRequest
from ..frontend.parse import parse_file
from ..compile.pipeline import Planner, instrument_sources, planned_defines
from .harness import entry_name, harness_text
from .manifest import Manifest, SourceEntry
from .signatures import kernel_signatures

MODULE_DEFINE = "CLTC_KERNEL_MODULE"


def build_library(sources: list[Path], backend: Backend, out_dir: Path, planners: list[Planner] = (),
                  include_dirs=(), defines=(),
                  flags=(), tools: list[str] = (), opt: str = "-O2") -> Path:
    """Build and write out_dir/manifest.json; returns its path."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    sources = [Path(s).resolve() for s in sources]
    incs = [Path(d).resolve() for d in include_dirs]
    entries = []
    for s in sources:
        sigs = kernel_signatures(parse_file(s, include_dirs=[s.parent, *incs], defines=defines))
        entries.append(SourceEntry(str(s), sigs))
    if backend.needs_lowering:   # a shared object of host code, with a launch harness
        manifest = _build_cpu(sources, entries, backend, out_dir, list(planners), incs, defines,
                              flags, opt)
    else:
        manifest = _build_gpu(sources, entries, backend, out_dir, list(planners), incs, defines,
                              flags, opt)
    manifest.tools = list(tools)
    return manifest.write(out_dir / "manifest.json")


def _build_cpu(sources, entries, backend, out_dir, planners, incs, defines, flags, opt):
    hdir = out_dir / "harness"
    hdir.mkdir(exist_ok=True)
    harnesses = []
    for i, (s, e) in enumerate(zip(sources, entries)):
        h = hdir / f"launch_{i}_{s.stem}.cu"
        h.write_text(harness_text(s, i, e.kernels, finish=i == 0))
        harnesses.append(h)
        e.entries = ["" if k.problem else entry_name(i, j) for j, k in enumerate(e.kernels)]
    src_incs = [s.parent for s in sources]
    instrumented = instrument_sources(harnesses, out_dir / "src", planners, src_incs + incs, defines,
                                      lower_cpu=True)
    new, mapped = instrumented.sources, instrumented.include_dirs
    all_defines = list(defines) + planned_defines(planners)
    lib = out_dir / "kernels.so"
    backend.build(BuildRequest(list(new), lib, list(mapped) + [include_dir()], all_defines,
                               ["-shared", "-fPIC", *flags], opt=opt))
    return Manifest("cpu", entries, library=lib.name, root=out_dir)


def _build_gpu(sources, entries, backend, out_dir, planners, incs, defines, flags, opt):
    if planners:
        instrumented = instrument_sources(sources, out_dir / "src", planners, incs, defines)
        new, mapped = instrumented.sources, instrumented.include_dirs
    else:
        new, mapped = list(sources), list(incs)
    all_defines = list(defines) + planned_defines(planners) + [MODULE_DEFINE]
    for i, (s, e) in enumerate(zip(new, entries)):
        cubin = out_dir / f"module_{i}_{Path(e.path).stem}.cubin"
        backend.build_cubin(BuildRequest([s], cubin, [*mapped, include_dir()], all_defines, list(flags), opt=opt))
        e.module = cubin.name
    return Manifest("gpu", entries, root=out_dir)
