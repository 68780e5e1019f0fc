"""cltc's options from a file, so CI runs `cltc coverage` with nothing on the command line.

Found as ruff and coverage.py find theirs (without --config): from the current directory upward,
the first directory holding a `cltc.toml` or a `pyproject.toml` with a `[tool.cltc]` table gives it
(cltc.toml first within one directory). In a cltc.toml the options sit beside the suite's own
tables, and the suite is that file's directory:

    [coverage]  fail_under = 80            # or { total = 80, branches = 90 }
    [mutate]    break = 50  high = 80  low = 60  runs = 5  operators = ["relational", "arithmetic"]
    [amplify]   runs = 10   schedules = ["first", "desc"]
    [search]    budget_runs = 500   seed = 1   check = "races"

In pyproject.toml the same tables sit under [tool.cltc] (`[tool.cltc.coverage]`), whose own keys
are shared by every command: `suite`, `kernels`, `backend`, `jobs`, `root`, `github`. Paths are relative to the
file. The command line wins over the file; an unknown key or a wrong type is an error naming the
file, as in hirace.toml."""
from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Callable

from instrument.backends import NAMES
from instrument.cli_support import add_backend_option, add_progress_options
from instrument.config_files import find_upward, read_toml
from instrument.errors import UserError
from instrument.files import not_regular

from .gates import COVERAGE_MEASURES, HIGH, LOW
from .suite import OPTION_TABLES as COMMANDS

SUITE_TABLES = ("build", "test")     # a cltc.toml's suite tables (suite.py reads them)


def _path(base: Path, v):
    if not isinstance(v, str):
        raise TypeError("a path (string)")
    return base / v


def _paths(base: Path, v):
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise TypeError("a list of paths (strings)")
    return [base / x for x in v]


def _positive_int(_base, v):
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise TypeError("a positive integer")
    return v


def _int(_base, v):
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError("an integer")
    return v


def _count(_base, v):
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise TypeError("an integer, 0 or more")
    return v


def _number(_base, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        raise TypeError("a positive number")
    return float(v)


def _percent(_base, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 100:
        raise TypeError("a percentage from 0 to 100")
    return str(v)


def _bool(_base, v):
    if not isinstance(v, bool):
        raise TypeError("true or false")
    return v


def _globs(_base, v):
    """--include / --omit patterns: a glob or a list of globs (matched as given, not as paths of the file)."""
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
        raise TypeError("a glob or a list of globs")
    return list(v)


def _backend(_base, v):
    if v not in NAMES:
        raise TypeError("one of " + ", ".join(NAMES))
    return v


def _names(_base, v):
    if isinstance(v, str):
        v = [x.strip() for x in v.split(",") if x.strip()]
    if not isinstance(v, list) or not v or not all(isinstance(x, str) for x in v):
        raise TypeError("a list of names")
    return ",".join(v)


def _operators(base, v):
    """Mutation operators by name (`cltc mutate --list-operators`): a name the tool does not have is an error
    naming the file, as `--operators` is."""
    from .mutate.operators import OPERATORS
    names = _names(base, v)
    bad = [n for n in names.split(",") if n not in OPERATORS]
    if bad:
        raise TypeError(f"a list of mutation operators ({', '.join(OPERATORS)}), not {', '.join(bad)}")
    return names


def _name_globs(_base, v):
    """Names or globs (`--kernel`): a string or a list of them, kept a list (a glob may hold a comma)."""
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not v or not all(isinstance(x, str) and x.strip() for x in v):
        raise TypeError("a name or a list of names (globs allowed)")
    return list(v)


def _revision(_base, v):
    if not isinstance(v, str) or not v.strip():
        raise TypeError("a git revision (a string: a branch, tag or commit)")
    return v


def _schedules(_base, v):
    """A list of schedule families (or single schedules), read as `--schedules` is (amplify/schedules.py)."""
    from .amplify.schedules import families
    if not (isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v))):
        raise TypeError("a list of schedule families")
    try:
        return ",".join(families(v))
    except UserError as exc:
        raise TypeError(f"a list of schedule families ({exc})") from None


def _check(_base, v):
    if v != "races":
        raise TypeError('"races"')
    return v


def _fail_under(_base, v):
    """A number (the total) or a table measure = percentage: the list --fail-under would build."""
    table = v if isinstance(v, dict) else {"total": v}
    out = []
    for measure, pct in table.items():
        if measure not in COVERAGE_MEASURES:
            raise TypeError("a percentage, or a table whose keys are " + ", ".join(COVERAGE_MEASURES))
        if isinstance(pct, bool) or not isinstance(pct, (int, float)) or not 0 <= pct <= 100:
            raise TypeError("a percentage, or a table of measure = percentage")
        out.append(f"{measure}={pct}")
    return out


# The defaults of the options that more than one place needs, declared once: each command's parser
# (its `default=`, which docs/configuration.md's table shows: tests/test_protocol.py compares), the
# engines' keyword defaults and the help texts read them here. (An option absent has its default where
# its parser declares it, or none: a file to write, a gate, a list whose absence means all.)
DEFAULTS: dict[str, dict[str, object]] = {
    "shared": {"backend": "auto", "github": True},
    "mutate": {"runs": 20, "high": HIGH, "low": LOW},
    "amplify": {"runs": 20, "schedules": "all", "seed": 0},
    "search": {"seed": 0, "budget_runs": 200, "timeout": 300.0},   # (budget_runs: when neither budget is given)
}

Convert = Callable[[Path, object], object]
# key in the file -> (argparse destination, conversion, help)
SHARED: dict[str, tuple[str, Convert, str]] = {
    "suite": ("suite", _path, "the suite directory (cltc.toml: that file's own directory)"),
    "kernels": ("kernels", _paths, "pytest suites: kernel files outside the suite directory"),
    "backend": ("backend", _backend, "auto, gpu or cpu"),
    "jobs": ("jobs", _positive_int, "tasks at once"),
    "root": ("root", _path, "reports name files relative to it (default: the git work tree holding the suite, "
                            "else the current directory)"),
    "github": ("github", _bool, "under GitHub Actions (GITHUB_ACTIONS=true): annotations and a step summary"),
}
KEYS: dict[str, dict[str, tuple[str, Convert, str]]] = {
    "coverage": {
        "fail_under": ("fail_under", _fail_under, "percentage, or { total, branches, loops, barriers }"),
        "count_executions": ("count_executions", _bool, "hit counts of executions instead of tests"),
        "json": ("json", _path, "JSON report file"), "lcov": ("lcov", _path, "lcov tracefile"),
        "cobertura": ("cobertura", _path, "Cobertura XML file"), "html": ("html", _path, "HTML directory"),
        "junit": ("junit", _path, "JUnit XML file"),
        "include": ("include", _globs, "globs of the files reported and counted (default: all)"),
        "omit": ("omit", _globs, "globs of files left out of the reports and counts"),
    },
    "mutate": {
        "break": ("break_at", _percent, "exit 1 under this mutation score"),
        "high": ("high", _percent, "a score at or above it is good (Stryker's high)"),
        "low": ("low", _percent, "a score under it is poor (Stryker's low)"),
        "runs": ("runs", _positive_int, "runs per mutant and test"),
        "operators": ("operators", _operators, "mutation operators"),
        "results": ("results", _path, "the campaign's results CSV"),
        "json": ("json", _path, "JSON report file"), "stryker": ("stryker", _path, "Stryker JSON report"),
        "html": ("html", _path, "HTML directory"),
        "junit": ("junit", _path, "JUnit XML file (a test case per mutant)"),
        "mutate": ("mutate_patterns", _globs, "only mutants in files matching these globs (GLOB:LINES ranges; "
                                              "!GLOB leaves files out)"),
        "kernel": ("kernel_names", _name_globs, "only mutants in these kernels and device functions (names or globs)"),
        "since": ("since", _revision, "only mutants on lines changed since this git revision"),
    },
    "amplify": {
        "runs": ("runs", _positive_int, "runs per schedule"),
        "schedules": ("schedules", _schedules, "schedule families (or single schedules)"),
        "seed": ("seed", _int, "seed for drawn schedules"),
        "timeout": ("timeout", _number, "seconds before a run is a hang"),
        "junit": ("junit", _path, "JUnit XML file (a test case per test)"),
        "json": ("json", _path, "JSON report file"), "plots": ("plots", _path, "plot directory"),
    },
    "search": {
        "budget_runs": ("budget_runs", _positive_int, "generated inputs to run"),
        "budget_seconds": ("budget_seconds", _number, "seconds to search"),
        "seed": ("seed", _count, "seed of the search (0 or more)"),
        "out": ("out", _path, "folder of the inputs kept (a suite) and the journal"),
        "check": ("check", _check, "\"races\": run the inputs kept under hirace"),
        "json": ("json", _path, "JSON report file"),
        "junit": ("junit", _path, "JUnit XML file (a test case per input kept, race and item not reached)"),
        "timeout": ("timeout", _number, "with -- COMMAND: seconds before a run of the command is killed"),
    },
}


def discover(start: Path) -> Path | None:
    """The file whose options apply in `start`: cltc.toml, or a pyproject.toml with a [tool.cltc]
    table, in start or the nearest directory above it; None when there is none."""
    return find_upward(start, "cltc.toml", "cltc")


def defaults(command: str, path: Path | None) -> dict[str, object]:
    """The argparse defaults the file at `path` gives `command` (empty without a file)."""
    if path is None:
        return {}
    path = Path(path)
    why = not_regular(path)
    if why == "no such":
        raise UserError(f"--config: {path}: no such file")
    if why:   # refused before it is opened: opening a FIFO would block cltc forever
        raise UserError(f"--config: {path}: is {why}", hint="name a regular file (a symlink to one is fine)")
    data = read_toml(path, "configuration file", "cltc reads its options from it; fix the file or pass --config")
    base = path.resolve().parent
    in_pyproject = path.name == "pyproject.toml"
    out: dict[str, object] = {}
    if in_pyproject:
        data = data.get("tool", {}).get("cltc", {})
        if not isinstance(data, dict):
            raise UserError(f"{path} [tool.cltc] must be a table")
        _apply({k: v for k, v in data.items() if k not in COMMANDS}, SHARED, base, f"{path} [tool.cltc]", out)
    else:   # cltc.toml: the suite is the file's directory; the suite's tables are suite.py's
        out["suite"] = base
        for key in data:
            if key not in (*SUITE_TABLES, *COMMANDS):
                raise UserError(f"{path}: unknown key '{key}'",
                                hint="a cltc.toml holds [build], [[test]] and the option tables "
                                     + ", ".join(f"[{c}]" for c in COMMANDS))
    for c in COMMANDS:   # every command's table is checked: a typo fails whichever command runs
        where = f"{path} [tool.cltc.{c}]" if in_pyproject else f"{path} [{c}]"
        table = data.get(c, {})
        if not isinstance(table, dict):
            raise UserError(f"{where} must be a table of cltc {c} options")
        known = {k: v for k, v in {**SHARED, **KEYS[c]}.items() if in_pyproject or k != "suite"}
        _apply(table, known, base, where, out if c == command else {})
    return out


def _apply(table: dict, known: dict[str, tuple[str, Convert, str]], base: Path, where: str,
           out: dict[str, object]) -> None:
    for key, value in table.items():
        if key not in known:
            raise UserError(f"{where}: unknown key '{key}'",
                            hint="known keys: " + "; ".join(f"{k} ({h})" for k, (_, _, h) in known.items()))
        dest, convert, help_ = known[key]
        try:
            out[dest] = convert(base, value)
        except TypeError as exc:
            raise UserError(f"{where}: '{key}' must be {exc}: {help_}") from None


def add_suite_options(p) -> None:
    """The options every cltc command shares: which suite, its kernels, the backend, the file."""
    p.add_argument("--suite", type=Path, metavar="DIR",
                   help="directory holding cltc.toml, or pytest tests (test_*.py) and their .cu kernels "
                        "(default: the cltc.toml or [tool.cltc] suite found from here upward)")
    p.add_argument("--kernels", action="append", type=Path, metavar="FILE",
                   help="pytest suites: a kernel file outside the suite directory (repeatable)")
    add_backend_option(p, DEFAULTS["shared"]["backend"], f"the file's backend, else {DEFAULTS['shared']['backend']}",
                       "the suite's programs")
    p.add_argument("--config", type=Path, metavar="FILE",
                   help="read options from this cltc.toml or pyproject.toml ([tool.cltc]) instead of the one "
                        "found from the current directory upward")
    p.add_argument("--root", type=Path, metavar="DIR",
                   help="reports name files relative to DIR, and those outside it by their absolute paths "
                        "(default: the git work tree holding the suite, or with -- COMMAND the current directory, "
                        "if there is one; else the current directory)")
    p.add_argument("--github", action=argparse.BooleanOptionalAction, default=DEFAULTS["shared"]["github"],
                   help="under GitHub Actions (GITHUB_ACTIONS=true), print annotations and append a summary to "
                        "$GITHUB_STEP_SUMMARY (default: on; --no-github or github = false: neither)")
    p.add_argument("-p", dest="build_db", type=Path, metavar="BUILD",
                   help="cltc.toml suites: each source also takes the -I, -isystem and -D its entry of "
                        "BUILD/compile_commands.json gives it (as clang tools read it), before the suite's own")


def report_paths(a, measured: Path):
    """How the reports name files: relative to --root (or the file's `root`), by default the git work
    tree holding `measured` (the suite, or the current directory for a command), else the current
    directory (instrument/report_paths.py)."""
    from instrument.report_paths import report_paths as paths
    return paths(getattr(a, "root", None), measured)


def github(a) -> bool:
    """GitHub Actions' annotations and step summary: under GitHub Actions, unless --no-github or
    `github = false`."""
    from instrument.github import active
    return bool(getattr(a, "github", True)) and active()


def suite_dir(a, command: str) -> Path:
    if a.suite is None:
        raise UserError(f"cltc {command} needs a suite: --suite DIR, or run it where a cltc.toml (or a "
                        f"pyproject.toml with [tool.cltc] suite = ...) is found from the current directory "
                        f"upward, or a project's test command: cltc {command} -- ctest --test-dir build")
    return a.suite


def add_output_options(p) -> None:
    """-q/-v and --no-progress, as every cltc command reads them (one declaration for the three)."""
    add_progress_options(p, quiet="print only the result: the verdict (totals, score, unstable tests) and the "
                                  "findings; no header naming the backend, no tables, no progress, no notes or "
                                  "warnings on stderr (the report counts them)",
                         verbose="also print a line per test (coverage: what only it covered; mutate: each reference "
                                 "run, and every mutant, the killed ones too; amplify: every schedule of every test)")


class Replaced(argparse.Action):
    """A repeatable option (`--mutate`, `--kernel`) whose values, given on the command line, replace the
    list a file gave rather than add to it (the command line wins)."""
    def __call__(self, parser, namespace, values, option_string=None):
        given = f"_{self.dest}_given"
        items = list(getattr(namespace, self.dest) or []) if getattr(namespace, given, False) else []
        setattr(namespace, self.dest, [*items, values])
        setattr(namespace, given, True)


class Given(argparse.Action):
    """An option's value, and that the command line gave it (`DEST_given`; set its default False): a
    file's value is a suite's default, and with a project's command `--runs` counts only when given."""
    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        setattr(namespace, f"{self.dest}_given", True)


def refuse_suite_options(a, command: str) -> None:
    """`cltc COMMAND [options] -- TEST COMMAND`: the options that choose what cltc builds and runs of a
    suite (its tests, a compilation database, Dask workers) have no meaning for a project's own command."""
    if getattr(a, "test", None):
        raise UserError(f"--test picks tests of a suite cltc runs; a command runs its own tests: drop --test, or "
                        f"choose the tests in the command (cltc {command} -- ctest -R NAME)")
    if a.build_db is not None:
        raise UserError(f"-p {a.build_db}: a compilation database gives flags to the sources cltc builds; a "
                        f"command's programs are built by their own build (through cltc-cc): drop -p")
    if getattr(a, "dask", None):
        raise UserError(f"--dask {a.dask}: a project's command runs where its build is, on this machine: drop "
                        f"--dask (-j N runs N commands at once here)")


def load_suite(a, command: str):
    """The suite the options name (`--suite`, or the one found), its tests chosen by `--test`, its
    sources given the flags of a compilation database with `-p BUILD` (instrument/compile/compile_db.py)."""
    from .program_suite import ProgramKind
    from .suite import load
    s = load(suite_dir(a, command), a.kernels)
    if a.build_db is not None:
        from instrument.compile import compile_db
        if not isinstance(s.kind, ProgramKind):
            raise UserError(f"-p {a.build_db}: a compilation database gives the flags of a cltc.toml suite's "
                            f"sources; {s.root} is a pytest suite", hint="drop -p")
        from instrument.files import source_language
        cuda = [src for src in s.sources if source_language(src) == "cuda" and src.suffix.lower() != ".c"]
        if not cuda:
            raise UserError(f"-p {a.build_db}: {s.root / 'cltc.toml'} names no CUDA source to take flags for")
        _, dirs, defines = compile_db.flags_for(compile_db.read(a.build_db), cuda, a.build_db)
        s.include = [*dirs, *[d for d in s.include if d not in dirs]]
        s.defines = [*defines, *s.defines]
    return s.select(a.test)


def database_files(a) -> list[Path]:
    """The compilation database `-p` names (an input of the run: no report is written over it)."""
    if getattr(a, "build_db", None) is None:
        return []
    from instrument.compile.compile_db import database_path
    return [database_path(a.build_db)]
