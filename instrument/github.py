"""GitHub Actions, for every tool: whether a run is under it (GITHUB_ACTIONS=true), workflow commands
(`::error` / `::warning` with a file and line become annotations on the run's page and the pull
request) escaped as the runner unescapes them, file paths relative to $GITHUB_WORKSPACE (the
checkout), Markdown table cells, and the step summary appended to $GITHUB_STEP_SUMMARY. A tool says
what to annotate (hirace/report_github.py, cltestcheck/report_github.py); each turns it off with
`--no-github` or `github = false` in its file."""
from __future__ import annotations

import os
from pathlib import Path

from .report_paths import ReportPaths

GITHUB_ACTIONS = "GITHUB_ACTIONS"
GITHUB_WORKSPACE = "GITHUB_WORKSPACE"
GITHUB_STEP_SUMMARY = "GITHUB_STEP_SUMMARY"


def active(environ=os.environ) -> bool:
    return environ.get(GITHUB_ACTIONS) == "true"


def data(text: str) -> str:
    """A workflow command's message, escaped as the runner unescapes it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def prop(text: str) -> str:
    """A workflow command's property value (file, title)."""
    return data(text).replace(":", "%3A").replace(",", "%2C")


def path(file: str, environ=os.environ) -> str:
    """A file as annotations name it: relative to the workspace where it lies there, else absolute."""
    return ReportPaths(Path(os.path.abspath(environ.get(GITHUB_WORKSPACE) or os.getcwd()))).show(file)


def command(level: str, message: str, title: str | None = None, file: str | None = None, line: int | None = None,
            col: int | None = None, environ=os.environ) -> str:
    """`::error` / `::warning` / `::notice`, on a file's line where one is given."""
    props = []
    if file:
        props.append(f"file={prop(path(file, environ))}")
        if line:
            props.append(f"line={line}")
            if col:
                props.append(f"col={col}")
    if title:
        props.append(f"title={prop(title)}")
    return f"::{level}{' ' + ','.join(props) if props else ''}::{data(message)}"


def cell(text: str) -> str:
    """Text in a cell of a Markdown table."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(head: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table's lines (cells escaped)."""
    return ["| " + " | ".join(cell(h) for h in head) + " |", "|" + "---|" * len(head),
            *("| " + " | ".join(cell(c) for c in r) + " |" for r in rows)]


def append_summary(text: str, environ=os.environ) -> None:
    """Append to $GITHUB_STEP_SUMMARY (the runner's file, shared by the job's steps: appended, never replaced)."""
    target = environ.get(GITHUB_STEP_SUMMARY)
    if target:
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(text)
