"""cltc in CI: which mutants a campaign judges (`--mutate GLOB[:LINES]`, `--kernel`, `--since GIT_REF`:
cltestcheck/mutate/scope.py, instrument/git_diff.py), JUnit of mutate (a test case per mutant), and -q/-v,
declared once for the three commands."""
from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET

import pytest

from cltestcheck import cli, config
from cltestcheck.mutate.planner import Mutant
from cltestcheck.mutate.scope import Scope, parse_pattern
from instrument.errors import UserError
from instrument.git_diff import changed_lines

from test_cltc_mutate import TWO_KERNELS as KERNELS   # (two kernels and a device function)


def _mutant(file, line, function, end_line=None) -> Mutant:
    return Mutant(1, 0, "relational", str(file), line, 3, end_line or line, 9, function, "<", "<=", "< replaced by <=")


def _git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                   capture_output=True)


def test_globs_line_ranges_exclusions_and_kernel_names(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    scan, legacy, top = src / "scan.cu", src / "scan_legacy.cu", tmp_path / "top.cu"
    ms = [_mutant(scan, 10, "scan_up"), _mutant(scan, 50, "ns::scan_down"), _mutant(legacy, 5, "old"),
          _mutant(top, 3, "reduce", end_line=4)]
    assert Scope.of(tmp_path) is None                                   # nothing given: every mutant

    def kept(patterns=(), kernels=()):
        selected, _ = Scope.of(tmp_path, list(patterns), list(kernels)).select(ms)
        return [(m.file.rsplit("/", 1)[1], m.line) for m in selected]
    assert kept(["src/scan*.cu", "!src/scan_legacy.cu"]) == [("scan.cu", 10), ("scan.cu", 50)]
    assert kept(["src/scan.cu:1-20,45"]) == [("scan.cu", 10)]           # `:45` is a line, 50 is past it
    assert kept(["**/top.cu:4"]) == [("top.cu", 3)]                     # `**/` matches no directory; 3-4 overlaps 4
    assert kept([f"{src}/*"]) == [("scan.cu", 10), ("scan.cu", 50), ("scan_legacy.cu", 5)]   # absolute
    assert kept(kernels=["scan_down"]) == [("scan.cu", 50)]             # a qualified name by its own name
    assert kept(["src/*"], ["scan_*"]) == [("scan.cu", 10), ("scan.cu", 50)]
    assert Scope.of(tmp_path, ["src/*"]).select(ms)[1] == 1             # (how many it left out)
    assert parse_pattern("!a.cu:3-4").exclude and parse_pattern("C:/x.cu").glob == "C:/x.cu"
    with pytest.raises(UserError, match=r"matches none of the files that hold mutants \(src/scan.cu, "):
        Scope.of(tmp_path, ["scan.cu"]).select(ms)                       # (relative to the suite's directory)
    with pytest.raises(UserError, match=r"--kernel scna_up: no kernel .*\(ns::scan_down, old, reduce, scan_up\)"):
        Scope.of(tmp_path, kernels=["scna_up"]).select(ms)
    with pytest.raises(UserError, match="the line range 9-2 is empty"):
        Scope.of(tmp_path, ["a.cu:9-2"])


def test_since_reads_the_lines_git_says_changed(tmp_path):
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    (repo / "a b.cu").write_text("1\n2\n3\n4\n")
    (repo / "sub" / "k.cu").write_text("x\ny\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "one")
    (repo / "a b.cu").write_text("1\nTWO\n3\n4\nfive\n")               # a line changed, one added
    (repo / "sub" / "k.cu").write_text("y\n")                            # only a deletion: no line changed
    (repo / "sub" / "new.cu").write_text("n\n")                          # untracked: whole
    changed = changed_lines(repo / "sub", "HEAD")
    assert changed == {str((repo / "a b.cu").resolve()): {2, 5}, str((repo / "sub" / "k.cu").resolve()): set(),
                       str((repo / "sub" / "new.cu").resolve()): None}
    with pytest.raises(UserError, match="--since nope: no such revision in the git repository at .*fetch-depth: 0"):
        changed_lines(repo, "nope")
    with pytest.raises(UserError, match="not a git revision"):
        changed_lines(repo, "--output=/tmp/x")                           # never read as git's option
    (tmp_path / "plain").mkdir()
    with pytest.raises(UserError, match="plain is not in a git work tree"):
        changed_lines(tmp_path / "plain", "HEAD")


def test_mutate_since_a_commit_judges_only_the_changed_lines_and_writes_junit(run_cli, tmp_path):
    """A suite in a git work tree: after an edit of shift's line, `--since HEAD` judges only its mutants;
    -q prints the score line, the scope and the survivors, and --junit a case per mutant judged. A glob
    that names no file is an error that still writes the JUnit file, and no other report."""
    (tmp_path / "k.cu").write_text(KERNELS)
    (tmp_path / "cltc.toml").write_text('[build]\nsources = ["k.cu"]\n[[test]]\nname = "t"\n')
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "one")
    (tmp_path / "k.cu").write_text(KERNELS.replace("a[i] - 3", "a[i] - 4"))
    r = run_cli("cltestcheck.cli", "mutate", "--suite", tmp_path, "--backend", "cpu", "--runs", "1", "--since", "HEAD",
                "--junit", tmp_path / "m.xml", "-q")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("mutation score ") and "cpu backend" not in r.stdout
    assert "kernel/function" not in r.stdout
    judged = int(lines[1].split(": ")[2].split()[0])
    assert lines[1].startswith("scope: --since HEAD: ") and 0 < judged < int(lines[1].split(" of ")[1].split()[0])
    assert r.stderr == ""                                                # no progress, no notes
    suite = ET.parse(tmp_path / "m.xml").getroot().find("testsuite")
    cases = suite.findall("testcase")
    assert len(cases) == judged and {c.get("classname") for c in cases} == {"cltc.mutate.shift"}
    assert all(c.get("name").startswith("k.cu:9:") for c in cases)      # (the stable id: file:line:col:op:...)
    failures = [c for c in cases if c.find("failure") is not None]
    assert int(suite.get("failures")) == len(failures) and all(
        c.find("failure").get("type") in ("cltc/survived", "cltc/undecided") for c in failures)
    assert len(failures) == r.stdout.count("\n  #")                      # the survivors -q lists
    bad = run_cli("cltestcheck.cli", "mutate", "--suite", tmp_path, "--backend", "cpu", "--mutate", "src/*.cu",
                  "--junit", tmp_path / "m.xml", "--json", tmp_path / "m.json")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr
    assert "--mutate src/*.cu: the glob 'src/*.cu' matches none of the files that hold mutants (k.cu)" in bad.stderr
    error = ET.parse(tmp_path / "m.xml").getroot().find("testsuite/testcase/error")
    assert "matches none of the files" in error.get("message") and not (tmp_path / "m.json").exists()


def test_quiet_and_verbose_are_declared_once_for_every_command(tmp_path):
    app = cli.build_app()
    for command in ("coverage", "mutate", "amplify"):
        p = app.parsers[command]
        assert p.parse_args(["-q"]).quiet and p.parse_args(["--verbose"]).verbose
        with pytest.raises(SystemExit):
            p.parse_args(["-q", "-v"])
    # the scope's options from a file; the command line's list replaces the file's
    (tmp_path / "pyproject.toml").write_text('[tool.cltc.mutate]\nmutate = ["src/*.cu"]\nkernel = "scan*"\n'
                                             'since = "origin/main"\njunit = "m.xml"\n')
    found = config.defaults("mutate", tmp_path / "pyproject.toml")
    assert found == {"mutate_patterns": ["src/*.cu"], "kernel_names": ["scan*"], "since": "origin/main",
                     "junit": tmp_path / "m.xml"}
    p = app.parsers["mutate"]   # (as cli_app re-parses over a file's defaults)
    p.set_defaults(**found)
    assert p.parse_args([]).mutate_patterns == ["src/*.cu"]
    assert p.parse_args(["--mutate", "a.cu", "--mutate", "b.cu:3"]).mutate_patterns == ["a.cu", "b.cu:3"]
    (tmp_path / "pyproject.toml").write_text('[tool.cltc.mutate]\nsince = 3\n')
    with pytest.raises(UserError, match="'since' must be a git revision"):
        config.defaults("mutate", tmp_path / "pyproject.toml")
