"""cltc's options from cltc.toml or pyproject.toml [tool.cltc], found from the current directory
upward; the command line wins; unknown keys and wrong types are errors naming the file."""
from __future__ import annotations

import shutil

import pytest

from cltestcheck import config

from conftest import TESTS

SUITES = TESTS / "suites"


def test_pyproject_found_upward_paths_relative_to_it(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.cltc]\nsuite = "gpu_tests"\nbackend = "cpu"\njobs = 2\n'
        '[tool.cltc.coverage]\nfail_under = { total = 80, branches = 90 }\nlcov = "out/c.info"\n'
        '[tool.cltc.mutate]\nbreak = 50\noperators = ["relational", "arithmetic"]\n')
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    found = config.discover(deep)
    assert found == tmp_path / "pyproject.toml"
    cov = config.defaults("coverage", found)
    assert cov == {"suite": tmp_path / "gpu_tests", "backend": "cpu", "jobs": 2,
                   "fail_under": ["total=80", "branches=90"], "lcov": tmp_path / "out" / "c.info"}
    mut = config.defaults("mutate", found)
    assert mut["break_at"] == "50" and mut["operators"] == "relational,arithmetic" and "fail_under" not in mut


def test_cltc_toml_nearer_than_pyproject_and_its_suite_is_its_directory(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.cltc]\nsuite = "elsewhere"\n')
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "cltc.toml").write_text('[build]\nsources = ["k.cu"]\n[[test]]\nname = "t"\n'
                                     '[amplify]\nruns = 3\nschedules = "first,desc"\nseed = 7\n')
    found = config.discover(suite)
    assert found == suite / "cltc.toml"
    assert config.defaults("amplify", found) == {"suite": suite, "runs": 3, "schedules": "first,desc", "seed": 7}
    assert config.discover(tmp_path) == tmp_path / "pyproject.toml"


def test_a_directory_without_a_file_gives_no_options(tmp_path):
    # tmp_path lies outside the project: nothing above it holds a cltc table
    assert config.discover(tmp_path) is None and config.defaults("coverage", None) == {}


@pytest.mark.parametrize("text,message", [
    ('[tool.cltc.coverage]\nfail_under = "lots"\n', "[tool.cltc.coverage]: 'fail_under' must be a percentage"),
    ('[tool.cltc.coverage]\nfail_under = { lines = 50 }\n', "keys are total, branches, loops, barriers"),
    ('[tool.cltc.mutate]\nhihg = 90\n', "[tool.cltc.mutate]: unknown key 'hihg'"),   # another command's table
    ('[tool.cltc]\nbackend = "tpu"\n', "[tool.cltc]: 'backend' must be one of auto"),
    ('[tool.cltc]\njobs = 0\n', "'jobs' must be a positive integer"),
    ('[tool.cltc.coverage]\nsuite = 3\n', "'suite' must be a path"),
    ('[tool.cltc\n', "not valid TOML"),
])
def test_bad_options_are_clear_errors_naming_the_file(run_cli, tmp_path, text, message):
    (tmp_path / "pyproject.toml").write_text(text)
    r = run_cli("cltestcheck.cli", "coverage", "--suite", SUITES / "cov_features", cwd=tmp_path)
    assert r.returncode == 2 and message in r.stderr and str(tmp_path / "pyproject.toml") in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_options_in_the_suites_cltc_toml_and_the_command_line_winning(run_cli, tmp_path):
    d = tmp_path / "s"
    shutil.copytree(SUITES / "cov_features", d)
    with open(d / "cltc.toml", "a") as f:
        f.write('\n[coverage]\nbackend = "cpu"\nfail_under = { branches = 84 }\njson = "cov.json"\n')
    r = run_cli("cltestcheck.cli", "coverage", "-q", cwd=d)   # no --suite: the cltc.toml here
    assert r.returncode == 1, r.stderr
    assert "branches coverage 83.3% (15/18) is under --fail-under branches=84" in r.stderr
    assert (d / "cov.json").is_file()
    r = run_cli("cltestcheck.cli", "coverage", "-q", "--fail-under", "branches=80", cwd=d)
    assert r.returncode == 0, r.stderr


def test_no_suite_anywhere_says_how_to_give_one(run_cli, tmp_path):
    r = run_cli("cltestcheck.cli", "amplify", cwd=tmp_path)
    assert r.returncode == 2 and "cltc amplify needs a suite: --suite DIR, or run it where a cltc.toml" in r.stderr


def test_an_options_only_cltc_toml_beside_pytest_tests_keeps_the_pytest_suite(tmp_path):
    from cltestcheck import suite as suite_mod
    from cltestcheck.pytest_suite import PYTEST
    (tmp_path / "k.cu").write_text("__global__ void k(int *a) { a[threadIdx.x] = 1; }\n")
    (tmp_path / "test_k.py").write_text("def test_a():\n    pass\n")
    (tmp_path / "cltc.toml").write_text("[coverage]\nfail_under = 50\n")
    s = suite_mod.load(tmp_path)
    assert s.kind is PYTEST and [t.name for t in s.tests] == ["test_k.py::test_a"]


def test_nvcc_only_flags_name_the_key_on_the_cpu_backend_and_go_to_gpu_flags(run_cli, tmp_path):
    """[build] flags go to both backends' compilers: an nvcc option the cpu backend's g++ refuses is named with
    the key, and gpu_flags (nvcc only) / cpu_flags (the host compiler only) take each backend's own."""
    from cltestcheck import suite
    from instrument.backends.cpu import CpuBackend
    from instrument.backends.gpu import GpuBackend
    d = tmp_path / "s"
    shutil.copytree(SUITES / "cov_features", d)
    text = (d / "cltc.toml").read_text()
    (d / "cltc.toml").write_text(text.replace("[build]\n", '[build]\nflags = ["--expt-relaxed-constexpr"]\n', 1))
    r = run_cli("cltestcheck.cli", "coverage", "--backend", "cpu", "--suite", d, cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"cltc: error: {d / 'cltc.toml'}: [build] flags: the cpu backend's host compiler "
                               "refused --expt-relaxed-constexpr: `flags` go to both backends' compilers"), r.stderr
    assert "hint: move nvcc-only flags to [build] gpu_flags" in r.stderr
    (d / "cltc.toml").write_text(text.replace("[build]\n", '[build]\nflags = ["-DA"]\ngpu_flags = '
                                              '["--expt-relaxed-constexpr"]\ncpu_flags = ["-DB"]\n', 1))
    s = suite.load(d)
    assert s.flags_for(CpuBackend()) == ["-DA", "-DB"]
    assert s.flags_for(GpuBackend()) == ["-DA", "--expt-relaxed-constexpr"]
