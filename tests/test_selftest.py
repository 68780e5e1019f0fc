"""hirace selftest: the program generator and the oracles, on the cpu backend."""
from __future__ import annotations

import json
import re

import pytest

from selftest import generate as gen
from selftest import oracles
from instrument.backends.cpu import CpuBackend


def test_a_seed_reproduces_a_program_exactly():
    a, b, c = gen.generate(11), gen.generate(11), gen.generate(12)
    assert a.text == b.text and a.text != c.text
    e = gen.generate(11, emi=True)
    assert e.text != a.text and "emi[0] > 12345" in e.text and "if (emi[1] == 0)" in e.text
    # the EMI variant only adds guarded code: the same kernels and phases
    assert e.phase_barriers == a.phase_barriers
    assert re.findall(r"__global__ void (\w+)", e.text) == re.findall(r"__global__ void (\w+)", a.text)


def test_feature_mix_over_many_seeds():
    feats = set()
    for s in range(60):
        feats |= set(gen.generate(s).features)
    assert feats >= {"atomic", "barrier", "branch", "loop", "switch", "warp", "tile"}
    off = gen.Options(barrier=False, warp=False, atomic=False)
    text = gen.generate(3, off).text
    assert "__syncwarp" not in text and "atomic" not in text.split("int run()")[0].split("namespace gp3")[1]


def test_each_atomic_word_has_one_operation():
    """Regression: mixing atomicAdd and atomicAnd on one word made checksums order-dependent
    (found by the schedules oracle on seeds 2, 3, 5)."""
    for s in range(200):
        ops = {}
        for op, slot in re.findall(r"(atomic\w+)\(&acc\[(\d+)\]", gen.generate(s).text):
            assert ops.setdefault(slot, op) == op, (s, slot)


def test_removed_barrier_lines_point_at_the_phase():
    p = gen.generate(4)
    assert p.phase_barriers > 0
    text, where = gen.assemble([p], {4: 0})
    lines = text.splitlines()
    lo, hi = where[4]
    assert "sh_i[" in lines[lo - 1] and "= " in lines[lo - 1]
    assert "/* removed */ /*phase-barrier 0*/" in "\n".join(lines[lo - 1:hi])
    assert "sh_i[" in lines[hi - 1]


@pytest.fixture(scope="module")
def selftest_json(tmp_path_factory):
    from hirace.cli import main
    d = tmp_path_factory.mktemp("selftest")
    rc = main(["selftest", "--programs", "4", "--batch", "4", "--seed", "20", "--backend", "cpu",
               "--no-progress", "--json", str(d / "st.json"), "--save", str(d / "fail")])
    return rc, json.loads((d / "st.json").read_text()), d


def test_every_oracle_holds_on_generated_programs(selftest_json):
    rc, data, d = selftest_json
    assert rc == 0 and not (d / "fail").exists()
    assert set(data["oracles"]) == set(oracles.ORACLES)
    for oracle, per in data["oracles"].items():
        assert sorted(per) == ["20", "21", "22", "23"], oracle
        assert all(why in ("", "n/a") for why in per.values()), (oracle, per)
    # the barrier oracle was really exercised
    assert sum(why == "" for why in data["oracles"]["barrier-race"].values()) >= 3


def only_oracles(monkeypatch, *kinds):
    """The checker builds only the plain program and those of the oracles `kinds`: a test of how
    one oracle's failure is reported needs no other oracle's builds (each is a compile; every
    oracle runs in test_every_oracle_holds_on_generated_programs)."""
    compare = oracles.Checker._compare
    monkeypatch.setattr(oracles.Checker, "_compare", lambda self, kind, *a: compare(self, kind, *a)
                        if kind in kinds else None)
    monkeypatch.setattr(oracles.Checker, "_barrier_race", lambda self, *a: None)


def test_a_broken_instrumentation_is_caught_and_saved(monkeypatch, tmp_path, capsys):
    """Make hirace forget what __syncthreads orders: the hirace oracle must fail, naming the seed,
    and the program must be saved for reproduction."""
    from hirace import planner
    real = planner.HiracePlanner.__call__
    only_oracles(monkeypatch, "hirace")

    def no_barrier_clocks(self, prog, plan):
        prog.barriers = [b for b in prog.barriers if b.name != "__syncthreads"]
        return real(self, prog, plan)
    monkeypatch.setattr(planner.HiracePlanner, "__call__", no_barrier_clocks)
    from hirace.cli import main
    rc = main(["selftest", "--programs", "1", "--seed", "4", "--backend", "cpu", "--no-progress", "-v",
               "--save", str(tmp_path / "fail")])
    out, err = capsys.readouterr()
    assert rc == 1
    assert "hirace selftest: 1 batches on " in err   # (-v: the campaign's statistics, also with one job)
    assert re.search(r"FAIL seed 4: hirace: hirace reported \d+ race\(s\) in a race-free program", out)
    assert (tmp_path / "fail" / "seed_4.cu").read_text() == gen.generate(4).text
    assert "seed 4: hirace" in (tmp_path / "fail" / "failures.txt").read_text()


def test_checker_reports_a_program_that_does_not_build(tmp_path, monkeypatch):
    real = gen.generate

    def broken(seed, opts=None, emi=False):
        p = real(seed, opts, emi)
        if emi and seed == 31:
            p.body = [ln.replace("int run() {", "int run() { undeclared_name = 1;") for ln in p.body]
        return p
    monkeypatch.setattr(oracles, "generate", broken)
    only_oracles(monkeypatch, "emi-low")
    res = oracles.Checker(CpuBackend(), gen.Options(kernels=1, statements=4)).check([30, 31], tmp_path)
    low = res.outcome["emi-low"]
    assert low[30] == "" and low[31].startswith("build failed") and "undeclared_name" in low[31]
