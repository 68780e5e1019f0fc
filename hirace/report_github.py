"""GitHub Actions: when GITHUB_ACTIONS=true, an `::error` workflow command for each finding (the
runner turns it into an annotation on the file and line, on the run's page and the pull request),
and a Markdown summary appended to $GITHUB_STEP_SUMMARY. Paths are relative to $GITHUB_WORKSPACE
(the checkout) when the file lies there. The commands go to stderr with the report (the runner
reads both streams; the program's stdout stays the program's). Off with `--no-github` or
`github = false`."""
from __future__ import annotations

import os
from pathlib import Path

from .report_text import render_memory_error, render_race
from .results import RaceReport

GITHUB_ACTIONS = "GITHUB_ACTIONS"
GITHUB_WORKSPACE = "GITHUB_WORKSPACE"
GITHUB_STEP_SUMMARY = "GITHUB_STEP_SUMMARY"


def active(environ=os.environ) -> bool:
    return environ.get(GITHUB_ACTIONS) == "true"


def _data(text: str) -> str:
    """A workflow command's message, escaped as the runner unescapes it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _path(file: str, environ) -> str:
    p = Path(file).resolve()
    base = Path(environ.get(GITHUB_WORKSPACE) or os.getcwd()).resolve()
    try:
        return p.relative_to(base).as_posix()
    except ValueError:
        return str(p)


def _command(site, title: str, message: str, environ) -> str:
    props = f"file={_prop(_path(site.file, environ))},line={site.line}"
    if site.column:
        props += f",col={site.column}"
    return f"::error {props},title={_prop(title)}::{_data(message)}"


def annotations(res: RaceReport, environ=os.environ) -> list[str]:
    """One `::error` command per race and out-of-bounds site."""
    out = [_command(r.site, f"hirace: data race ({r.kind}) in kernel {r.kernel}",
                    render_race(r, res.prior_sites).removeprefix("==================\n"), environ)
           for r in res.races]
    out += [_command(m.site, f"hirace: out-of-bounds {m.access} in kernel {m.kernel}",
                     render_memory_error(m).removeprefix("==================\n"), environ)
            for m in res.memory_errors]
    return out


def error_annotation(message: str) -> str:
    """The `::error` of a run that failed (no file: the build, the program or the tool)."""
    return f"::error title=hirace failed::{_data(message)}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def summary(res: RaceReport | None, status: int, error: str | None = None, environ=os.environ) -> str:
    """The step summary: the verdict, and a table of the findings (or the failure)."""
    if error is not None:
        return f"### hirace: failed (exit {status})\n\n```\n{error}\n```\n"
    assert res is not None
    lines = [f"### hirace: {len(res.races)} data race(s), {len(res.memory_errors)} out-of-bounds site(s) "
             f"(exit {status})", "",
             f"{res.launches} launch(es) checked" + (f" on the {res.backend} backend" if res.backend else "")
             + (f"; {len(res.suppressed)} known benign race(s) suppressed" if res.suppressed else "")
             + (f"; the program exited with status {res.program_exit}" if res.program_exit else ""), ""]
    if res.races or res.memory_errors:
        lines += ["| finding | kernel | where | what |", "|---|---|---|---|"]
        for r in res.races:
            lines.append(f"| data race ({r.kind}) | `{_cell(r.kernel)}` | `{_cell(_path(r.site.file, environ))}:"
                         f"{r.site.line}` | {_cell(r.variable)} in {r.memory} memory: {_cell(r.scope)} |")
        for m in res.memory_errors:
            lines.append(f"| out-of-bounds {m.access} | `{_cell(m.kernel)}` | `{_cell(_path(m.site.file, environ))}:"
                         f"{m.site.line}` | {_cell(m.where())} {_cell(m.buffer)} |")
        lines.append("")
    return "\n".join(lines) + "\n"


def append_summary(text: str, environ=os.environ) -> None:
    """Append to $GITHUB_STEP_SUMMARY (the runner's file, shared by the job's steps: appended, never replaced)."""
    path = environ.get(GITHUB_STEP_SUMMARY)
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(text)
