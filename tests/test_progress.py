"""Progress of long commands where no terminal shows a bar (CI logs): periodic lines with the
right unit, silence for a short run, and the -q/--no-progress options on every long command."""
import io

import pytest

from instrument.progress import Progress, Warnings


def test_periodic_lines_name_the_unit_the_count_and_the_time_left():
    out = io.StringIO()   # not a terminal
    bar = Progress(4, "cltc mutate", unit="mutants", interval=0.0, stream=out)
    bar.step()
    bar.note("2 killed")
    bar.step()
    bar.close()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("cltc mutate: 1/4 mutants (25%), 0:00 elapsed, about 0:00 left")
    assert lines[1].startswith("cltc mutate: 2/4 mutants (50%)") and lines[1].endswith("(2 killed)")
    assert lines[-1].startswith("cltc mutate: 2/4 mutants (50%)") and len(lines) == 3


def test_a_short_run_or_progress_off_prints_nothing():
    out = io.StringIO()
    bar = Progress(3, "cltc coverage", unit="tests", interval=3600, stream=out)
    for _ in range(3):
        bar.step()
    bar.close()
    off = io.StringIO()
    bar = Progress(3, "x", enabled=False, interval=0.0, stream=off)
    bar.step()
    bar.close()
    assert out.getvalue() == "" and off.getvalue() == ""


@pytest.mark.parametrize("command", [("cltestcheck.cli", "coverage"), ("cltestcheck.cli", "mutate"),
                                     ("cltestcheck.cli", "amplify"), ("indigo_bench.cli", "sweep"),
                                     ("hirace.cli", "selftest")])
def test_every_long_command_takes_quiet_and_no_progress(run_cli, command):
    r = run_cli(command[0], command[1], "--help")
    assert r.returncode == 0 and "--no-progress" in r.stdout and "-q, --quiet" in r.stdout


def test_warnings_show_once_each_as_soon_as_added_and_stay_for_the_report():
    out = io.StringIO()
    w = Warnings("cltc", show=True, stream=out)
    w.add("first")
    assert out.getvalue() == "cltc: warning: first\n"       # before anything else happens
    w.add("first", "", "second")
    assert list(w) == ["first", "second"] and out.getvalue().count("first") == 1
    quiet = io.StringIO()
    Warnings("cltc", show=False, stream=quiet).add("x")
    assert quiet.getvalue() == ""
