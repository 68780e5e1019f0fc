"""Write a command's report files all together: render first, then write each atomically."""
from __future__ import annotations

from pathlib import Path

from instrument.output import atomic_write_text, write_report_dir


def write_reports(files: list[tuple[Path | None, object]], html_dir: Path | None, html_render) -> None:
    """files: (path or None, render function); html_render() gives {name: page}. Nothing is
    written unless every report rendered."""
    texts = [(path, render()) for path, render in files if path]
    pages = html_render() if html_dir else None
    for path, text in texts:
        atomic_write_text(path, text)
    if pages is not None:
        write_report_dir(html_dir, pages)
