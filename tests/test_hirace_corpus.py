"""The accuracy corpus: every labelled program on the cpu backend, zero misses and
zero false alarms. A line ending in `// RACE` takes part in a race; a program
without such a line is race-free."""
from pathlib import Path

import pytest

from hirace import runner
from hirace.config import Config

from conftest import CUDA

PROGRAMS = sorted((CUDA / "races").glob("*.cu")) + sorted((CUDA / "litmus").glob("*.cu"))


def expected_lines(path: Path) -> set[int]:
    return {i for i, line in enumerate(path.read_text().splitlines(), 1) if line.rstrip().endswith("// RACE")}


def test_corpus_size_and_balance():
    racy = [p for p in PROGRAMS if expected_lines(p)]
    assert len(PROGRAMS) >= 60
    assert len(racy) >= 25 and len(PROGRAMS) - len(racy) >= 25


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_verdict_and_sites(path):
    expect = expected_lines(path)
    res = runner.run([path], "cpu", Config(prior_sites=True), timeout=120)
    lines = {r.site.line for r in res.races} | {r.prior_site.line for r in res.races if r.prior_site}
    files = {r.site.file for r in res.races}
    if not expect:
        assert not res.races, f"false alarm at lines {sorted(lines)}"
        return
    assert res.races, "missed race"
    assert files == {str(path)}
    assert lines <= expect, f"reported lines {sorted(lines)} outside the expected {sorted(expect)}"
