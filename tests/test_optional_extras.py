"""A plain `pip install .` leaves pandas and matplotlib out (the `report` extra): no command line
imports them, and the commands that need them say which extra to install, in one line, before any
work (instrument/extras.py)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT

CLI_MODULES = ("hirace.cli", "hirace.cc", "cltestcheck.cli", "cltestcheck.cc", "indigo_bench.cli",
               "cltestcheck.pytest_plugin")
OPTIONAL = ("pandas", "matplotlib")


def _python(code: str, blocked=()) -> subprocess.CompletedProcess:
    """`code` in a fresh interpreter where the modules `blocked` cannot be imported (as after a plain
    install)."""
    prelude = "import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in blocked)
    return subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


def test_no_command_line_imports_pandas_or_matplotlib():
    code = ("import importlib\n"
            f"for m in {CLI_MODULES!r}:\n"
            "    mod = importlib.import_module(m)\n"
            "    if hasattr(mod, 'build_app'):\n"
            "        mod.build_app()   # (every command's options set up)\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({OPTIONAL!r})))\n")
    r = _python(code)
    assert r.returncode == 0 and r.stdout == "[]\n", r.stderr


@pytest.mark.parametrize("argv, missing", [
    (["indigo_bench.cli", "report", "--out", "{tmp}"], "pandas"),
    (["indigo_bench.cli", "report", "--no-plot", "--out", "{tmp}"], "pandas"),
    (["cltestcheck.cli", "amplify", "--suite", str(ROOT / "examples" / "cltc_suite"), "--plots", "{tmp}/p"],
     "matplotlib"),
])
def test_a_command_that_needs_the_report_extra_names_it(tmp_path, argv, missing):
    module, *args = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    r = _python(f"import {module}\nsys.exit({module}.main({args!r}))", blocked=OPTIONAL)
    message = (f"needs {missing}, which is not installed (a plain install leaves it out): "
               f"pip install 'cuda-correctness-toolkit[report]'")
    assert r.returncode == 2 and message in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr
    assert list(tmp_path.iterdir()) == []   # (nothing run, nothing written)


def test_a_parquet_sweep_names_its_extra_before_it_runs(tmp_path):
    r = _python("import indigo_bench.cli\nsys.exit(indigo_bench.cli.main(['sweep', '--codes', "
                f"{str(ROOT / 'examples' / 'indigo_mini' / 'codes')!r}, '--graphs', {str(tmp_path)!r}, "
                f"'--format', 'parquet', '--out', {str(tmp_path / 'out')!r}]))", blocked=("pandas",))
    assert r.returncode == 2 and "pip install 'cuda-correctness-toolkit[parquet]'" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()
