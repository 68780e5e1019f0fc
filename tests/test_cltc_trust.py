"""cltc and untrusted input: names that would lead files out of their directory, outputs too large
to hold, damaged journals, files that are not regular files, scratch left by a killed campaign."""
from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest

from cltestcheck import config
from cltestcheck import suite as suite_mod
from cltestcheck.amplify import report
from cltestcheck.amplify.engine import AmplifyResult, ScheduleRuns
from cltestcheck.amplify.engine import TestAmplification as Amplified
from cltestcheck.mutate.journal import COLUMNS, MutantJournal
from cltestcheck.program_suite import PROGRAM
from instrument.errors import UserError

from conftest import ROOT, TESTS

CAMPAIGN = "c0ffee"


def _suite(d: Path, tests: str, files=("exp.txt",)) -> Path:
    """A cltc.toml suite in d (never built: these tests load it, or run a script as its program)."""
    d.mkdir(parents=True, exist_ok=True)
    (d / "prog.cu").write_text("int main() { return 0; }\n")
    for f in files:
        (d / f).write_text("42\n")
    (d / "cltc.toml").write_text('[build]\nsources = ["prog.cu"]\n\n' + textwrap.dedent(tests))
    return d


# ---------------------------------------------------------------- 1. names that lead out of a directory

def test_plot_names_never_leave_the_plot_directory():
    names = report.plot_names(["../../escape", "/etc/x", "a/b", "a_b", ".hidden", "ok-1.x", "..", "A_B"])
    assert all("/" not in n and not n.startswith(".") and n.endswith(".png") for n in names.values())
    assert len(set(n.lower() for n in names.values())) == len(names)   # a/b, a_b and A_B stay apart
    assert names["ok-1.x"] == "ok-1.x.png"


def test_write_plots_of_a_test_named_dot_dot_writes_inside_the_directory(tmp_path):
    pytest.importorskip("matplotlib")
    t = Amplified("../../escape", "schedule-dependent", "1", ["1", "2"],
                [ScheduleRuns("first:0", Counter({0: 1}), 0, 1), ScheduleRuns("desc", Counter({1: 1}), 0, 1)], 2)
    res = AmplifyResult("s", "cpu", "all", 0, 1, [t])
    out = tmp_path / "deep" / "plots"
    written = report.write_plots(res, out)
    assert [p.parent for p in written] == [out] and written[0].is_file()
    assert sorted(p.name for p in tmp_path.rglob("*.png")) == [written[0].name]


def test_a_symlink_in_the_plot_directory_leading_out_is_refused(tmp_path):
    out = tmp_path / "plots"
    out.mkdir()
    (out / "t.png").symlink_to(tmp_path / "elsewhere.png")
    with pytest.raises(UserError, match="leads out of the plot directory"):
        report.inside(out, "t.png")


@pytest.mark.parametrize("key", ["../out.txt", "/tmp/out.txt", "a/../../out.txt", ".", "in.txt"])
def test_output_files_keys_must_stay_in_the_run_directory(tmp_path, key):
    d = _suite(tmp_path / "s", f"""
        [[test]]
        name = "t"
        files = ["in.txt"]
        output_files = {{ "{key}" = "exp.txt" }}
        """, files=("exp.txt", "in.txt"))
    with pytest.raises(UserError) as e:
        suite_mod.load(d)
    assert str(d / "cltc.toml") in str(e.value) and f"output_files key '{key}'" in str(e.value)


def test_a_symlink_the_program_leaves_as_an_output_file_is_not_followed(tmp_path):
    d = _suite(tmp_path / "s", """
        [[test]]
        name = "t"
        output_files = { "out.txt" = "exp.txt" }
        """)
    s = suite_mod.load(d)
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the report\n")
    run = tmp_path / "run"
    run.mkdir()
    (run / "out.txt").symlink_to(secret)
    with pytest.raises(UserError, match=r"cltc\.toml: test 't': output_files key 'out.txt': .*leads out"):
        PROGRAM._written(s, s.tests[0], run, "out.txt")
    (run / "inner.txt").write_text("42\n")
    (run / "link.txt").symlink_to(run / "inner.txt")
    assert PROGRAM._written(s, s.tests[0], run, "link.txt").head == "42\n"


# ---------------------------------------------------------------- 2. long outputs are not held in memory

_MEASURE = """
import json, resource, sys
from pathlib import Path
from cltestcheck import suite as suite_mod
from cltestcheck.execute import run_test
from cltestcheck.judge import judge
from instrument.backends.cpu import CpuBackend

s = suite_mod.load(sys.argv[1])
exe = Path(sys.argv[1]) / "big.sh"
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
obs = run_test(CpuBackend(), exe, s, s.tests[0])
same, other = judge(s.tests[0], obs), judge(s.tests[1], obs)
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
size = getattr(obs.stdout, "size", None) or len(obs.stdout)
print(json.dumps({"grown_kib": grown, "size": size, "same": [same.passed, same.reason],
                  "other": [other.passed, other.reason], "exit": obs.exit_code}))
"""


def test_a_test_printing_50_mb_is_judged_without_holding_it(tmp_path):
    lines = 4_000_000   # "line N\n": 47 MB
    d = _suite(tmp_path / "s", """
        [[test]]
        name = "same"
        stdout_file = "want.txt"

        [[test]]
        name = "other"
        stdout_file = "other.txt"
        """, files=())
    script = d / "big.sh"
    script.write_text(f"#!/bin/sh\nseq 1 {lines} | sed 's/^/line /'\n")
    script.chmod(0o755)
    subprocess.run(f"./big.sh > want.txt && sed 's/^line 2000000$/line 2000000x/' want.txt "
                   f"> other.txt", shell=True, cwd=d, check=True)
    size = (d / "want.txt").stat().st_size
    assert size > 40_000_000
    r = subprocess.run([sys.executable, "-c", _MEASURE, str(d)], capture_output=True, text=True, cwd=ROOT,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["exit"] == 0 and got["size"] == size
    assert got["same"] == [True, ""]
    assert got["other"] == [False, "stdout differs: line 2000000: got 'line 2000000', expected 'line 2000000x'"]
    assert got["grown_kib"] * 1024 < size / 5, got   # held whole, the output alone would be 50 MB (and more)


def test_long_outputs_compare_as_short_ones_do():
    from cltestcheck.captured import EXCERPT, Captured
    from cltestcheck.judge import same_output
    from cltestcheck.judge import same_text
    import cltestcheck.captured as cap

    def long(text):   # the same text, as if it were too long to keep whole
        c = Captured.of_text(text)
        c.path = Path(os.devnull)   # never read: chunks() is replaced below
        return c
    cases = [("1 2 3\n", "1 2 3\n", None), ("1\n2\n", "1\n3\n", None), ("1\n2\n", "1\n", None),
             ("1\n2", "1\n2\n", None), ("1.0 2.0", "1.0 2.0000001", 1e-6), ("1.0 2.0", "1.0 2.1", 1e-6),
             ("a b", "a b c", 1e-6), ("x\r\ny", "x\ny", None)]
    original = cap.Captured.chunks
    try:
        def chunks(self):   # one character at a time: every line and token crosses a chunk boundary
            yield from self.head
        cap.Captured.chunks = chunks
        for got, want, tol in cases:
            assert same_output(long(got), long(want), tol) == same_text(got, want, tol), (got, want, tol)
    finally:
        cap.Captured.chunks = original
    assert EXCERPT < 1 << 20


# ---------------------------------------------------------------- 3. the mutation journal

def _row(**kw) -> dict:
    row = {"campaign": CAMPAIGN, "key": "k1", "id": 1, "operator": "relop", "file": "a.cu", "line": 3, "col": 5,
           "replacement": "<=", "status": "killed", "reason": "t: stdout differs", "killed_by": json.dumps(["t"]),
           "covered_by": json.dumps(["t"]), "kills": json.dumps({"t": [1, 1]})}
    return {**row, **kw}


def _journal(path, rows, tail: str = ""):
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow(r)
    with open(path, "a") as fh:
        fh.write(tail)
    return path


def test_journal_drops_a_torn_last_row_with_a_note_and_resumes(tmp_path, capsys):
    path = _journal(tmp_path / "rows.csv", [_row()], tail=f"{CAMPAIGN},k2,2,relop,a.cu,4,1,<,surv")
    j = MutantJournal(path, CAMPAIGN)
    j.close()
    assert [r["key"] for r in j.rows] == ["k1"]
    err = capsys.readouterr().err
    assert "line 3" in err and "cut short" in err
    assert path.read_text().endswith("\n")   # the torn row is gone before new rows are appended


def test_journal_drops_a_torn_last_row_that_began_a_quoted_field(tmp_path, capsys):
    path = _journal(tmp_path / "rows.csv", [_row()],
                    tail=f'{CAMPAIGN},k2,2,relop,a.cu,4,1,<,survived,"two\nlines')
    j = MutantJournal(path, CAMPAIGN)
    j.close()
    assert [r["key"] for r in j.rows] == ["k1"]
    assert "line 3" in capsys.readouterr().err


@pytest.mark.parametrize("bad, what", [
    ({"kills": "{not json"}, "'kills'"),
    ({"killed_by": json.dumps({"t": 1})}, "'killed_by'"),
    ({"line": "three"}, "'line'"),
])
def test_journal_refuses_a_damaged_row_naming_file_and_line(tmp_path, bad, what):
    path = _journal(tmp_path / "rows.csv", [_row(key="k0"), _row(**bad), _row(key="k2")])
    with pytest.raises(UserError) as e:
        MutantJournal(path, CAMPAIGN)
    assert f"{path}:3:" in str(e.value) and what in str(e.value)
    assert "delete this row" in str(e.value)


def test_journal_refuses_a_row_with_missing_fields(tmp_path):
    path = _journal(tmp_path / "rows.csv", [_row()], tail=f"{CAMPAIGN},k2,2\n")
    with pytest.raises(UserError, match=r"rows\.csv:3: this row has 3 fields"):
        MutantJournal(path, CAMPAIGN)


def test_journal_refuses_two_rows_that_disagree_on_one_mutant(tmp_path):
    path = _journal(tmp_path / "rows.csv", [_row(), _row(key="k2"), _row(status="survived", killed_by="[]")])
    with pytest.raises(UserError) as e:
        MutantJournal(path, CAMPAIGN)
    msg = str(e.value)
    assert f"{path}:4:" in msg and "'survived'" in msg and "line 2" in msg and "'killed'" in msg


def test_journal_accepts_a_failed_row_judged_again_later(tmp_path):
    path = _journal(tmp_path / "rows.csv", [_row(status="failed", killed_by="[]"), _row(), _row()])
    j = MutantJournal(path, CAMPAIGN)
    j.close()
    assert len(j.rows) == 3


# ---------------------------------------------------------------- 4. files that are not regular files

@pytest.mark.parametrize("key", ["stdin_file", "stdout_file"])
def test_a_fifo_named_by_a_suite_is_not_a_regular_file_not_missing(tmp_path, key):
    d = _suite(tmp_path / "s", f"""
        [[test]]
        name = "t"
        {key} = "pipe"
        """)
    os.mkfifo(d / "pipe")
    with pytest.raises(UserError) as e:
        suite_mod.load(d)   # (opening the FIFO would block: the test would hang, not fail)
    msg = str(e.value)
    assert str(d / "cltc.toml") in msg and f"'{key}'" in msg and "not a regular file" in msg and "FIFO" in msg


def test_a_fifo_as_expected_output_file_or_as_the_suite_file(tmp_path):
    d = _suite(tmp_path / "s", """
        [[test]]
        name = "t"
        output_files = { "out.txt" = "pipe" }
        """)
    os.mkfifo(d / "pipe")
    with pytest.raises(UserError, match="'output_files' names pipe, which is a FIFO, not a regular file"):
        suite_mod.load(d)
    (d / "cltc.toml").unlink()
    os.mkfifo(d / "cltc.toml")
    with pytest.raises(UserError, match=r"cltc\.toml: is a FIFO, not a regular file"):
        suite_mod.load(d)


def test_a_fifo_as_config_is_refused_at_once(tmp_path, run_cli):
    fifo = tmp_path / "cltc.toml"
    os.mkfifo(fifo)
    with pytest.raises(UserError, match="--config: .*cltc.toml: is a FIFO, not a regular file"):
        config.defaults("coverage", fifo)
    r = run_cli("cltestcheck.cli", "coverage", "--config", fifo, timeout=60)
    assert r.returncode == 2 and "is a FIFO, not a regular file" in r.stderr and "Traceback" not in r.stderr


# ---------------------------------------------------------------- 5. scratch left by a killed campaign

def test_cltc_scratch_directories_go_through_the_reaper():
    """Every scratch directory cltc makes itself is a reaper.temp_dir (removed by the guardian on
    SIGKILL): no tempfile.mkdtemp, gettempdir or TMPDIR of its own."""
    for f in (ROOT / "cltestcheck").rglob("*.py"):
        text = f.read_text()
        for word in ("mkdtemp", "gettempdir", "TemporaryDirectory", "TMPDIR"):
            assert word not in text, f"{f}: {word}"


def test_no_campaign_scratch_is_left_after_sigkill(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "cltestcheck.cli", "amplify", "--suite",
                             str(TESTS / "suites" / "amp_blocks"), "--backend", "cpu", "-q"],
                            cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not any(p.name == "gated" for p in tmp.glob("*/*/*")) and time.monotonic() < deadline:
        time.sleep(0.05)   # the build has begun: its directory and the compiler's temporaries exist
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 20
    left = None
    while time.monotonic() < deadline:   # the guardian notices the closed pipe and cleans up
        try:
            left = [p for p in tmp.glob("*/*")]
        except FileNotFoundError:   # (a directory went while the glob read it: the cleanup is under way)
            left = None
            continue
        if not left:
            break
        time.sleep(0.2)
    assert left == [], left


# ---------------------------------------------------------------- a name given twice

def test_a_source_or_input_file_named_twice_is_refused_by_name(tmp_path):
    d = _suite(tmp_path / "s", """
        [[test]]
        name = "t"
        files = ["exp.txt", "./exp.txt"]
        """)
    with pytest.raises(UserError, match="test 't': 'files' names ./exp.txt more than once"):
        suite_mod.load(d)   # (it was "exp.txt: File exists", from the run directory's links)
    text = (d / "cltc.toml").read_text().replace('sources = ["prog.cu"]', 'sources = ["prog.cu", "./prog.cu"]')
    (d / "cltc.toml").write_text(text.replace('files = ["exp.txt", "./exp.txt"]', ""))
    with pytest.raises(UserError, match=r"\[build\]: 'sources' names prog.cu more than once"):
        suite_mod.load(d)   # (it was a link error: main defined twice)
