"""The accuracy corpus: every labelled program on the cpu backend, zero misses and
zero false alarms. A line ending in `// RACE` takes part in a race; a program
without such a line is race-free."""
from pathlib import Path

import pytest

from hirace import runner
from hirace.config import Config
from instrument.backends.cpu import CpuBackend
from instrument.frontend.parse import parse_file
from instrument.protocol import Env
from instrument.frontend.query import query

from conftest import CORPUS_OPT, CUDA

PROGRAMS = sorted((CUDA / "races").glob("*.cu")) + sorted((CUDA / "litmus").glob("*.cu"))
# labelled programs that use CUB or Thrust, which run on a GPU only (bench/hirace_gpu_corpus.py)
GPU_ONLY = sorted((CUDA / "gpu_only").glob("*.cu"))


def expected_lines(path: Path) -> set[int]:
    return {i for i, line in enumerate(path.read_text().splitlines(), 1) if line.rstrip().endswith("// RACE")}


def test_the_corpus_has_races_in_every_memory_space_and_race_free_programs_of_every_synchronisation():
    """What the corpus must exercise: labelled races on shared memory, on device variables and
    through pointers; race-free programs ordered by barriers, warp barriers and atomics."""
    spaces, syncs = set(), set()
    racy = sum(bool(expected_lines(p)) for p in PROGRAMS)
    assert 0 < racy < len(PROGRAMS)
    # parsed until every form is found (a parse takes about a second), the likeliest programs first
    likely = ("__shared__", "__device__ int", "__syncwarp", "atomic")
    for p in sorted(PROGRAMS, key=lambda p: -sum(w in p.read_text() for w in likely)):
        if {"shared", "global", "pointer"} <= spaces and {"__syncthreads", "__syncwarp", "atomic"} <= syncs:
            break
        want = expected_lines(p)
        prog = query(parse_file(p, include_dirs=[p.parent]))
        spaces |= {a.space for a in prog.accesses if a.span.line in want}
        if not want:
            syncs |= {b.name for b in prog.barriers} | ({"atomic"} if prog.atomics else set())
    assert {"shared", "global", "pointer"} <= spaces
    assert {"__syncthreads", "__syncwarp", "atomic"} <= syncs


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_verdict_and_sites(path, tmp_path, monkeypatch):
    """... and where a kernel has a quiet version (hirace/proofs/quiet_version.py), again without the
    versions: the same verdict both ways."""
    expect = expected_lines(path)
    config = Config(prior_sites=True)
    built = runner.build([path], CpuBackend(), tmp_path, config, opt=CORPUS_OPT)
    _check(path, expect, built, config)
    if "__hirace_q(" in (tmp_path / "src" / path.name).read_text():
        monkeypatch.setenv(Env.HIRACE_QUIET_VERSIONS, "0")
        _check(path, expect, built, config)


def _check(path: Path, expect: set[int], built, config: Config) -> None:
    proc, res = runner.execute(built, config, timeout=120)
    assert res is not None and res.program_exit == 0, proc.stderr[-2000:]
    lines = {r.site.line for r in res.races} | {r.prior_site.line for r in res.races if r.prior_site}
    files = {r.site.file for r in res.races}
    if not expect:
        assert not res.races, f"false alarm at lines {sorted(lines)}"
        return
    assert res.races, "missed race"
    assert files == {str(path)}
    assert lines <= expect, f"reported lines {sorted(lines)} outside the expected {sorted(expect)}"
