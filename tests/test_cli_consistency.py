"""The three command lines alike (issue 48): every option of every command has a help text; every
`--option` an error, hint or warning tells the user to pass exists; -q/-v where a command prints
informational lines. Read from the parsers themselves and the sources' strings, so a new option
without help, or a hint naming an option that was renamed, fails here."""
from __future__ import annotations

import argparse
import ast
import re

import pytest

from conftest import ROOT

from cltestcheck.cli import build_app as cltc_app
from hirace.cli import build_app as hirace_app
from indigo_bench.cli import build_app as bench_app

APPS = (hirace_app, cltc_app, bench_app)


def _commands():
    """(command words, parser) of every command and subcommand of the three tools."""
    def walk(p, words):
        yield words, p
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, [*words, name])
    for build in APPS:
        app = build()
        yield from walk(app.parser, [app.prog])


COMMANDS = {" ".join(words): p for words, p in _commands()}


def test_every_option_of_every_command_says_what_it_does():
    missing = [f"{cmd}: {'/'.join(a.option_strings) or a.dest}" for cmd, p in COMMANDS.items() for a in p._actions
               if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))
               and (not a.help or a.help == argparse.SUPPRESS)]
    assert missing == [], "options without help"


def test_hirace_run_help_documents_its_compiler_options_the_backend_the_timeout_and_the_program_arguments():
    text = COMMANDS["hirace run"].format_help()
    for option in ("-I DIR", "-D NAME[=VALUE]", "--backend", "--timeout S", "--root DIR", "--granularity BYTES"):
        assert option in text, option
    assert "prog.cu [more.cu ...] [-- ARGS...]" in text and "-- COMMAND ARGS..." in text


# options of other programs that a message tells the user to pass to them
OTHER_PROGRAMS = {"--nthreads": "dask worker", "--test-dir": "ctest"}
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
MESSAGE_CALLS = {"UserError", "ArgumentTypeError", "print", "append", "warn", "say", "failed", "note"}


def _message_options() -> dict[str, set[str]]:
    """Every --option named in the strings of a message: an error (UserError, its hint), a printed or
    appended warning or note, in the tools' Python sources, and in what the runtimes print (C string
    literals of runtime/include: fprintf and the like)."""
    found: dict[str, set[str]] = {}
    for package in ("hirace", "cltestcheck", "instrument", "selftest", "indigo_bench"):
        for f in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(f.read_text())):
                if not isinstance(node, ast.Call):
                    continue
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", "")
                if name not in MESSAGE_CALLS and not any(k.arg == "hint" for k in node.keywords):
                    continue
                for s in ast.walk(node):
                    if isinstance(s, ast.Constant) and isinstance(s.value, str):
                        for o in OPTION.findall(s.value):
                            found.setdefault(o, set()).add(f"{f.relative_to(ROOT)}:{s.lineno}")
    for f in (ROOT / "runtime" / "include").rglob("*.h"):
        for n, line in enumerate(f.read_text().splitlines(), 1):
            for literal in re.findall(r'"((?:[^"\\]|\\.)*)"', line):
                for o in OPTION.findall(literal):
                    found.setdefault(o, set()).add(f"{f.relative_to(ROOT)}:{n}")
    return found


def test_every_option_a_message_names_exists():
    """A hint that names an option the tools do not have (`--granularity 8` before it existed) sends the
    user nowhere."""
    known = {o for p in COMMANDS.values() for a in p._actions for o in a.option_strings}
    named = _message_options()
    unknown = {o: sorted(where) for o, where in named.items() if o not in known and o not in OTHER_PROGRAMS}
    assert unknown == {}, "messages name options no command has"
    assert set(OTHER_PROGRAMS) <= set(named), "a program's option is no longer named: drop it from OTHER_PROGRAMS"
    assert "--granularity" in named   # (the runtime's hint when device memory runs out)


# ---------------------------------------------------------------- -q / -v, declared once (cli_support)

# the commands that print informational lines (what they did, where they wrote, the backend) beside their
# results: each takes -q; those with more to say on request take -v
QUIET = ["hirace run", "hirace instrument", "hirace selftest", "cltc coverage", "cltc mutate", "cltc amplify",
         "indigo-bench sweep", "indigo-bench report", "indigo-bench graphs"]
VERBOSE = ["hirace run", "hirace instrument", "hirace selftest", "cltc coverage", "cltc mutate", "cltc amplify",
           "indigo-bench sweep"]


@pytest.mark.parametrize("command", QUIET)
def test_commands_that_inform_take_quiet_and_those_with_more_to_say_verbose(command):
    options = {o for a in COMMANDS[command]._actions for o in a.option_strings}
    assert {"-q", "--quiet"} <= options
    assert ({"-v", "--verbose"} <= options) == (command in VERBOSE)


def test_hirace_instrument_quiet_and_verbose(tmp_path, capsys):
    from hirace.cli import main
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(int *a) { a[threadIdx.x] = a[0]; }\n")
    assert main(["instrument", "-q", "-o", str(tmp_path / "q"), str(src)]) == 0
    assert capsys.readouterr().out == "" and (tmp_path / "q" / "hirace_sites.json").is_file()
    assert main(["instrument", "-v", "-o", str(tmp_path / "v"), str(src)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"hirace: {src}: 2 sites" and out[1].startswith("hirace: instrumented 2 sites into")


def test_indigo_bench_graphs_quiet(tmp_path, capsys):
    from indigo_bench.cli import main
    assert main(["graphs", "--kind", "grid", "--nodes", "9", "-q", "-o", str(tmp_path / "g.egr")]) == 0
    assert capsys.readouterr().out == "" and (tmp_path / "g.egr").is_file()
