"""Write a command's report files all together: render first, then write each atomically."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from instrument.output import atomic_write_bytes, atomic_write_text, write_report_dir


def paths_of(measured: str, paths=None):
    """How a report names files: `paths` (--root: instrument/report_paths.py), or the default root of
    what was measured (the git work tree holding it, else the current directory)."""
    from instrument.report_paths import ReportPaths, find_root
    return paths or ReportPaths(find_root(measured))


def shown(measured: str, paths=None) -> Callable[[str], str]:
    """A file as a report names it: relative to the root where it lies there, else absolute (paths_of)."""
    return paths_of(measured, paths).show


def write_reports(files: list[tuple[Path | None, object]], html_dir: Path | None, html_render) -> None:
    """files: (path or None, render function giving text or bytes); html_render() gives {name: page}.
    Nothing is written unless every report rendered."""
    texts = [(path, render()) for path, render in files if path]
    pages = html_render() if html_dir else None
    for path, text in texts:
        (atomic_write_bytes if isinstance(text, bytes) else atomic_write_text)(path, text)
    if pages is not None:
        write_report_dir(html_dir, pages)


def write_junit_failure(path: Path | None, tool: str, message: str, elapsed: float) -> None:
    """--junit of a run that ended in an error before its report (exit 2): the file says so (one case
    with the error), so that a CI step never reads a stale or missing file (as hirace's)."""
    if path is None:
        return
    from instrument import junit
    case = junit.Case(tool, tool.replace(" ", "."),
                      errors=[junit.Problem(message.splitlines()[0], "cltc/error", message)])
    junit.write(path, [junit.Suite(tool, [case], elapsed)])
