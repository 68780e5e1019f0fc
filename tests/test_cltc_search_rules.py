"""cltc search and the project's rules, without a search's runs where none is needed: bad input is an
error naming what is wrong (exit 2, no traceback) that leaves no --out folder behind; the files it
writes stay what they mean whatever text a user's names and arguments hold (a cltc.toml TOML reads, a
test file Python compiles, a shell script that runs only the commands it lists); a number past the
double's range is changed, not a crash. A build that fails (a syntax error) is the one compile here."""
from __future__ import annotations

import os
import subprocess
import tomllib

import numpy as np
import pytest

from cltestcheck import cli
from cltestcheck.search import values
from cltestcheck.search.command_runs import CommandSuite
from cltestcheck.search.inputs import Input
from cltestcheck.search.suite_out import CommandWriter, Kept, PytestWriter, SuiteWriter
from cltestcheck.suite import Suite
from cltestcheck.suite import TestCase as Case

from conftest import ROOT

THIN = ROOT / "tests" / "suites" / "search_thin"


def test_a_negative_seed_is_refused_on_the_command_line_and_in_cltc_toml(tmp_path, capsys, monkeypatch):
    out = tmp_path / "deep" / "found"
    with pytest.raises(SystemExit) as stop:   # (argparse's exit)
        cli.main(["search", "--suite", str(THIN), "--backend", "cpu", "--seed", "-1", "--out", str(out)])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--seed: '-1' must be 0 or more" in err and "Traceback" not in err and "internal error" not in err
    assert not (tmp_path / "deep").exists()
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "thin.cu").write_bytes((THIN / "thin.cu").read_bytes())
    (suite / "cltc.toml").write_text('[build]\nsources = ["thin.cu"]\n\n[[test]]\nname = "t"\nargs = ["8"]\n\n'
                                     '[search]\nseed = -3\n')
    monkeypatch.chdir(suite)
    assert cli.main(["search", "--backend", "cpu", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "cltc.toml [search]: 'seed' must be an integer, 0 or more" in err and "Traceback" not in err
    assert not (tmp_path / "suite-search").exists()


def test_a_search_that_fails_in_its_build_leaves_no_out_folder_and_no_scratch(tmp_path, capsys, monkeypatch):
    suite = tmp_path / "broken"
    suite.mkdir()
    (suite / "bad.cu").write_text("__global__ void k(int *p) { p[0] = ; }\nint main() { return 0; }\n")
    (suite / "cltc.toml").write_text('[build]\nsources = ["bad.cu"]\n\n[[test]]\nname = "t"\nargs = ["1"]\n')
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)   # (read TMPDIR again)
    out = tmp_path / "a" / "b" / "found"
    empty = tmp_path / "empty"
    empty.mkdir()
    for where in (out, empty):
        status = cli.main(["search", "--suite", str(suite), "--backend", "cpu", "--no-progress", "--out", str(where)])
        err = capsys.readouterr().err
        assert status == 2 and "bad.cu:1" in err and "Traceback" not in err
    assert not (tmp_path / "a").exists()            # the folders it made, taken back
    assert empty.is_dir() and not any(empty.iterdir())   # the user's empty folder, left as it was (empty)
    # (cctk-tmp-*: this process's compilers' scratch, which the guardian removes as the process ends)
    assert not [p for p in scratch.iterdir() if not p.name.startswith("cctk-tmp-")], list(scratch.iterdir())


def test_new_numbers_from_numbers_past_the_doubles_range():
    rng = np.random.default_rng(0)
    for v in (1e308, -1e308, float("inf"), float("-inf"), float("nan")):
        got = [values.new_float(rng, v) for _ in range(200)]
        assert all(isinstance(x, float) for x in got)
    assert {values.new_number(rng, "1e+308") for _ in range(200)} - {"inf", "-inf"}   # (never raises)
    assert all(values.is_number(values.new_number(rng, "1e999")) for _ in range(50))


def _kept(name: str, test: Case, inp: Input) -> Kept:
    return Kept(name, test, inp, 0, ["x.cu:3: [k] if (a): then"], run=1)


def test_a_written_cltc_toml_reads_back_whatever_its_strings_hold(tmp_path):
    (tmp_path / "k.cu").write_text("\n")
    test = Case("odd\nname\x7f", ["5"], "in\x7f\x01put\n")
    suite = Suite(tmp_path, [tmp_path / "k.cu"], tests=[test])
    writer = SuiteWriter(tmp_path / "out", suite, 0)
    writer.add(_kept("search-001", test, Input(("5\x7f", "a\"b\\c"), (), test.stdin, test.name, f"test '{test.name}'",
                                                ("argument 1: 5 -> 6\nline two",))))
    doc = tomllib.loads((tmp_path / "out" / "cltc.toml").read_text())
    assert doc["test"] == [{"name": "search-001", "args": ["5\x7f", "a\"b\\c"], "stdin": "in\x7f\x01put\n",
                            "timeout": 60}]


def test_a_written_pytest_file_compiles_whatever_the_test_is_called(tmp_path):
    test = Case('test_k.py::test_k["""\\x]', pytest=True)
    suite = Suite(tmp_path / 'we"""ird', [])
    writer = PytestWriter(tmp_path / "out", suite, 0, str, dump=None)
    writer.kept.append(_kept("search-001", test, Input(("1",), (), None, test.name, f"test '{test.name}'", ("a\nb",))))
    text = writer.render()
    code = compile(text, "test_search_found.py", "exec")
    assert "test_search_001" in code.co_names and text.splitlines()[0].startswith("# Written by `cltc search`")


def test_the_written_script_runs_only_its_commands_whatever_the_paths_and_arguments_hold(tmp_path):
    root = tmp_path / "run $(touch pwned1) 'x\"y"
    root.mkdir()
    suite = CommandSuite(root, ["true", "5\ntouch pwned2"], [Case("command", ["5\ntouch pwned2"])])
    writer = CommandWriter(tmp_path / "out $(touch pwned3)", suite, 0)
    writer.add(_kept("search-001", suite.tests[0], Input(("6\ntouch pwned4; echo $(touch pwned5)",), (), None,
                                                         "command", "test 'command'", ("argument 1\ntouch pwned6",))))
    script = tmp_path / "out $(touch pwned3)" / "commands.sh"
    res = subprocess.run(["sh", str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                         env={"PATH": os.environ["PATH"]})
    assert res.returncode == 0, res.stderr
    assert not [p for p in (tmp_path, root) for f in p.iterdir() if f.name.startswith("pwned")]


def test_the_numbers_two_episodes_move_arguments_first_then_the_files_in_turn():
    from cltestcheck.search.climb import MAX_SLOTS, choose
    inp = Input(("8", "2.0"), (("x.txt", b"1.0\n2.0\n3.0\n4.0\n5.0\n"), ("y.txt", b"0\n0\n0\n0\n0\n")),
                places=("launch-1/1-n", "launch-1/2-k"))
    found = values.slots(inp, {"x.txt": False, "y.txt": False})
    first, second = choose(found, 0), choose(found, 1)
    assert len(first) == len(second) == MAX_SLOTS
    name = {id(s): f"{s.kind}:{s.where}:{s.index}" for s in found}
    assert [name[id(s)] for s in first] == ["arg:0:0", "arg:1:0", "text:x.txt:0", "text:y.txt:0", "text:x.txt:1",
                                            "text:y.txt:1", "text:x.txt:2", "text:y.txt:2"]
    assert {name[id(s)] for s in first} | {name[id(s)] for s in second} == set(name.values())   # (12: all)
    assert choose(found[:5], 3) == found[:5]


def test_a_journal_of_another_version_is_refused_by_name(tmp_path, capsys):
    out = tmp_path / "old"
    out.mkdir()
    (out / "search-journal.jsonl").write_text('{"fingerprint": "x", "format": 1, "record": "campaign", "seed": 0}\n')
    assert cli.main(["search", "--suite", str(THIN), "--backend", "cpu", "--no-progress", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "another version of cltc search (its journal's format 1, this version's 2)" in err and "Traceback" not in err
    assert (out / "search-journal.jsonl").read_text().count("\n") == 1   # (left as it was)
