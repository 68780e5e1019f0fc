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


SPACES = {"shared", "global", "pointer"}                 # of the labelled races
SYNCS = {"__syncthreads", "__syncwarp", "atomic"}        # of the race-free programs
_HINTS = {True: (("shared", "__shared__"), ("global", "__device__ int "), ("pointer", "int *")),
          False: (("__syncthreads", "__syncthreads()"), ("__syncwarp", "__syncwarp("), ("atomic", "atomic"))}


def _hinted(path: Path, missing: set[str]) -> tuple:
    """How likely a parse of `path` adds the forms still `missing`, by its text (the parse decides):
    the forms its words suggest, then no libcu++ (whose headers take seconds to parse), then short."""
    text = path.read_text()
    suggested = {form for form, word in _HINTS[bool(expected_lines(path))] if word in text}
    return len(suggested & missing), "#include <cuda/" not in text, -len(text)


def test_the_corpus_has_races_in_every_memory_space_and_race_free_programs_of_every_synchronisation():
    """What the corpus must exercise: labelled races on shared memory, on device variables and
    through pointers; race-free programs ordered by barriers, warp barriers and atomics."""
    spaces, syncs = set(), set()
    racy = sum(bool(expected_lines(p)) for p in PROGRAMS)
    assert 0 < racy < len(PROGRAMS)
    # parsed until every form is found (a parse takes a second or more), each time the program likeliest
    # to add a missing one (four parses where the corpus's order took eighteen)
    left = list(PROGRAMS)
    while left and not (SPACES <= spaces and SYNCS <= syncs):
        p = max(left, key=lambda p: _hinted(p, (SPACES - spaces) | (SYNCS - syncs)))
        left.remove(p)
        want = expected_lines(p)
        prog = query(parse_file(p, include_dirs=[p.parent]))
        spaces |= {a.space for a in prog.accesses if a.span.line in want}
        if not want:
            syncs |= {b.name for b in prog.barriers} | ({"atomic"} if prog.atomics else set())
    assert SPACES <= spaces
    assert SYNCS <= syncs


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
