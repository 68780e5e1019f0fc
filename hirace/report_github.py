"""GitHub Actions: when GITHUB_ACTIONS=true, an `::error` workflow command for each finding (the
runner turns it into an annotation on the file and line, on the run's page and the pull request),
and a Markdown summary appended to $GITHUB_STEP_SUMMARY. Paths are relative to $GITHUB_WORKSPACE
(the checkout) when the file lies there. The commands go to stderr with the report (the runner
reads both streams; the program's stdout stays the program's); the text of a finding names files as
the other reports do (`paths`, --root). Off with `--no-github` or `github = false`. The workflow
commands, their escaping and the summary file are every tool's: instrument/github.py."""
from __future__ import annotations

import os

from instrument.github import GITHUB_ACTIONS, GITHUB_STEP_SUMMARY, GITHUB_WORKSPACE, active, append_summary  # noqa: F401
from instrument.github import cell as _cell, command, path as _path
from instrument.report_paths import ReportPaths

from .report_text import render_memory_error, render_race, render_stream_race
from .results import RaceReport


def _command(site, title: str, message: str, environ) -> str:
    return command("error", message, title, site.file, site.line, site.column, environ)


def annotations(res: RaceReport, environ=os.environ, paths: ReportPaths | None = None) -> list[str]:
    """One `::error` command per race and out-of-bounds site (on the file as the workspace names it, the
    text naming files as `paths` does)."""
    out = [_command(r.site, f"hirace: data race ({r.kind}) in kernel {r.kernel}",
                    render_race(r, res.prior_sites, paths).removeprefix("==================\n"), environ)
           for r in res.races]
    out += [_command(m.site, f"hirace: out-of-bounds {m.access} in kernel {m.kernel}",
                     render_memory_error(m, paths).removeprefix("==================\n"), environ)
            for m in res.memory_errors]
    out += [command("error", render_stream_race(x, paths).removeprefix("==================\n"),
                    f"hirace: data race ({x.kind}) between unordered operations", x.second.file, x.second.line, None, environ)
            for x in res.stream_races]
    return out


def error_annotation(message: str) -> str:
    """The `::error` of a run that failed (no file: the build, the program or the tool)."""
    return command("error", message, "hirace failed")


def summary(res: RaceReport | None, status: int, error: str | None = None, environ=os.environ) -> str:
    """The step summary: the verdict, and a table of the findings (or the failure)."""
    if error is not None:
        return f"### hirace: failed (exit {status})\n\n```\n{error}\n```\n"
    assert res is not None
    between = f", {len(res.stream_races)} between unordered operations" if res.stream_races else ""
    lines = [f"### hirace: {len(res.races)} data race(s){between}, {len(res.memory_errors)} out-of-bounds site(s) "
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
    if res.stream_races:
        lines += ["| data race between | first | then | on |", "|---|---|---|---|"]
        for x in res.stream_races:
            lines.append(f"| {x.kind} | {_cell(x.first.name())} `{_cell(_path(x.first.file, environ))}:{x.first.line}` "
                         f"| {_cell(x.second.name())} `{_cell(_path(x.second.file, environ))}:{x.second.line}` "
                         f"| {_cell(x.buffer or 'untracked memory')} |")
        lines.append("")
    return "\n".join(lines) + "\n"
