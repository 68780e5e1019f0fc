"""cltc amplify on the cpu backend: inter-block races and order assumptions caught, race-free kernels stable."""
from __future__ import annotations

import json

import pytest

from cltestcheck import suite as suite_mod
from cltestcheck.amplify import engine, schedules

from conftest import TESTS

SUITE = TESTS / "suites" / "amp_blocks"


@pytest.fixture(scope="module")
def result():
    return engine.run(suite_mod.load(SUITE), "cpu", runs=20, family="all", seed=0, jobs=2, progress=False)


def test_verdicts(result):
    v = {t.name: t.verdict for t in result.tests}
    assert v == {"stable": "stable", "last_writer": "schedule-dependent", "block0_first": "schedule-dependent"}


def test_last_writer_depends_on_the_order_deterministically(result):
    t = next(t for t in result.tests if t.name == "last_writer")
    by = {s.schedule: s for s in t.schedules}
    assert t.reference.strip() == "mode 1 blocks 40 result 39"
    assert by["asc"].outputs == {0: 1}
    desc = by["desc"].outputs
    assert list(desc) != [0] and t.outputs[next(iter(desc))].strip() == "mode 1 blocks 40 result 0"


def test_block0_first_fails_whenever_another_block_goes_first(result):
    t = next(t for t in result.tests if t.name == "block0_first")
    for s in t.schedules:
        w = int(s.schedule[6:]) if s.schedule.startswith("first:") else None
        if w is not None:
            assert (t.matching(s) == 1.0) == (w == 0)
    assert t.matching(next(s for s in t.schedules if s.schedule == "asc")) == 1.0


def test_verbose_report_and_junit_name_every_schedule_of_every_test(result):
    from cltestcheck.amplify import report
    text = report.render_text(result, verbose=True)
    stable = text[text.index("stable: STABLE"):text.index("last_writer:")]
    assert "  schedule asc: reference x1" in stable and "  schedule desc: reference x1" in stable
    assert "  schedule asc: reference x1" not in report.render_text(result)   # (without -v: what changed only)
    cases = {c.name: c for c in report.junit_suite(result, 1.0).cases}
    assert not cases["stable"].failures and "schedule desc: reference x1" in cases["stable"].output
    assert [f.type for f in cases["block0_first"].failures] == ["cltc/schedule-dependent"]


def test_schedule_families():
    first = schedules.make("first", 95, seed=3)
    assert len(first) == 10 and all(10 * i <= int(s[6:]) < min(10 * i + 10, 95) for i, s in enumerate(first))
    assert schedules.make("serial", 95, 3)[:2] == ["asc", "desc"] and len(schedules.make("serial", 95, 3)) == 5
    assert schedules.make("free", 5, 0) == ["free"]
    assert schedules.make("first", 95, 3) == first            # the seed reproduces the draw


def test_cli_exit_codes_json_and_plots(run_cli, tmp_path):
    r = run_cli("cltestcheck.cli", "amplify", "--suite", SUITE, "--backend", "cpu", "--test", "stable",
                "--schedules", "serial")
    assert r.returncode == 0 and "stable: STABLE" in r.stdout
    # a warning is on stderr as soon as it is known (and in the report at the end)
    assert "cltc: warning: cpu backend: block order is deterministic" in r.stderr
    r = run_cli("cltestcheck.cli", "amplify", "--suite", SUITE, "--backend", "cpu", "--test", "last_writer",
                "--schedules", "serial", "--json", tmp_path / "a.json", "--plots", tmp_path / "p", "-q",
                "--junit", tmp_path / "a.xml")
    assert r.returncode == 1 and "schedule desc" in r.stdout
    # -q: no header naming the backend, the warning counted instead of shown
    assert "cpu backend" not in r.stdout and "1 note(s) not shown (-q)" in r.stdout and "warning" not in r.stderr
    import xml.etree.ElementTree as ET
    (case,) = ET.parse(tmp_path / "a.xml").getroot().iter("testcase")
    failure = case.find("failure")
    assert case.get("name") == "last_writer" and failure.get("type") == "cltc/schedule-dependent"
    assert failure.get("message").startswith("schedule-dependent: its outcome changes under desc, random:")
    doc = json.loads((tmp_path / "a.json").read_text())
    assert doc["tests"][0]["verdict"] == "schedule-dependent"
    assert (tmp_path / "p" / "last_writer.png").stat().st_size > 1000
    r = run_cli("cltestcheck.cli", "amplify", "--suite", SUITE, "--backend", "cpu", "--schedules", "sideways")
    assert r.returncode == 2 and "unknown schedule family 'sideways'" in r.stderr


def test_hang_is_named(tmp_path):
    (tmp_path / "spin.cu").write_text(
        "#include <cstdio>\n__global__ void wait_for_zero(volatile int *flag) {\n"
        "  if (blockIdx.x == 0) { *flag = 1; return; }\n  while (*flag == 0) {}\n}\n"
        "int main() { int *f; cudaMalloc(&f, 4); cudaMemset(f, 0, 4); wait_for_zero<<<4, 1>>>(f);\n"
        "  cudaDeviceSynchronize(); printf(\"done\\n\"); }\n")
    (tmp_path / "cltc.toml").write_text('[build]\nsources = ["spin.cu"]\n[[test]]\nname = "spin"\n')
    res = engine.run(suite_mod.load(tmp_path), "cpu", runs=1, family="serial", progress=False, timeout=3)
    (t,) = res.tests
    assert t.verdict == "hangs"
    hung = {s.schedule for s in t.schedules if s.hangs}
    assert "desc" in hung and "asc" not in hung


def test_grid_sync_is_refused(run_cli, tmp_path):
    (tmp_path / "g.cu").write_text(
        "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
        "__global__ void k(int *a) { cg::grid_group g = cg::this_grid(); a[0] = 1; g.sync(); }\n"
        "int main() { return 0; }\n")
    (tmp_path / "cltc.toml").write_text('[build]\nsources = ["g.cu"]\n[[test]]\n')
    r = run_cli("cltestcheck.cli", "amplify", "--suite", tmp_path, "--backend", "cpu")
    assert r.returncode == 2 and "synchronises the whole grid" in r.stderr and "g.cu:3" in r.stderr


def test_gate_goes_into_every_kernel_of_a_name(tmp_path):
    """Regression (found by hirace selftest on an H100): kernels named alike in two namespaces got
    one gate between them; the other read an unset logical block id."""
    from cltestcheck.amplify.planner import SchedulePlanner
    from instrument.compile.pipeline import instrument_sources
    src = tmp_path / "two.cu"
    src.write_text("namespace a { __global__ void k(int *p) { p[blockIdx.x] = 1; } }\n"
                   "namespace b { __global__ void k(int *p) { p[blockIdx.x] = 2; } }\n"
                   "int main() { int *p; cudaMalloc((void **)&p, 8); a::k<<<2, 1>>>(p); b::k<<<2, 1>>>(p); return 0; }\n")
    instrumented = instrument_sources([src], tmp_path / "out", [SchedulePlanner(gate=True)])
    srcs, progs = instrumented.sources, instrumented.programs
    text = srcs[0].read_text()
    assert len(progs[0].kernels) == 2
    assert text.count("::cltc::sched::Gate cltc_gate_;") == 2 and text.count("before_launch") == 2
