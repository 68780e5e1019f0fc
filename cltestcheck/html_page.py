"""What the HTML reports share: the page frame, escaping, and a source listing with notes per line."""
from __future__ import annotations

import html
from pathlib import Path

STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse}td,th{padding:2px 10px;border-bottom:1px solid #ddd;text-align:left}
pre.src{font-family:ui-monospace,monospace;font-size:13px;line-height:1.45}
.ln{color:#999;display:inline-block;width:4em;text-align:right;margin-right:1em}
.hit{background:#e6ffed}.miss{background:#ffeef0}.part{background:#fff8c5}
.b{display:inline-block;margin-left:.6em;padding:0 .4em;border-radius:3px;font-size:11px;font-family:system-ui}
.ok{background:#2da44e;color:#fff}.no{background:#cf222e;color:#fff}.warn{background:#bf8700;color:#fff}
.na{background:#888;color:#fff}
"""


def esc(s: str) -> str:
    return html.escape(s, quote=True)


def page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
            f"<style>{STYLE}</style></head><body>{body}</body></html>\n")


def badge(text: str, cls: str, title: str = "") -> str:
    t = f" title='{esc(title)}'" if title else ""
    return f"<span class='b {cls}'{t}>{esc(text)}</span>"


def listing(path: str, notes: dict[int, tuple[str, list[str]]]) -> str:
    """The source of `path`, each line with (css class, badges) from notes."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return f"<p>(source {esc(path)} not readable)</p>"
    out = ["<pre class='src'>"]
    for i, line in enumerate(text.splitlines(), 1):
        cls, badges = notes.get(i, ("", []))
        out.append(f"<div class='{cls}'><span class='ln'>{i}</span>{esc(line)}{''.join(badges)}</div>")
    out.append("</pre>")
    return "".join(out)
