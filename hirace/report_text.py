"""The readable report, in the style of ThreadSanitizer's."""
from __future__ import annotations

import os

from .results import Race, RaceReport


def _where(site) -> str:
    return f"{os.path.relpath(site.file)}:{site.line}:{site.column}"


def _xyz(t) -> str:
    return f"({t[0]},{t[1]},{t[2]})"


def render_race(r: Race) -> str:
    lines = [
        "==================",
        f"WARNING: hirace: data race ({r.kind}) in {r.memory} memory, kernel '{r.kernel}' (launch {r.launch})",
        f"  {r.access.capitalize()} of {r.variable} (byte offset {r.offset}) at {_where(r.site)} "
        f"by thread {_xyz(r.thread)} of block {_xyz(r.block)}:",
        f"      {r.site.text}",
    ]
    prior = f"by thread {_xyz(r.prior_thread)} of block {_xyz(r.prior_block)}"
    if r.prior_is_other:
        lines.append("  Previous conflicting access by another thread that shares the word at this scope "
                     "(several threads accessed it since the last barrier)")
    elif r.prior_site is not None:
        lines += [f"  Previous access {prior}; its last access to this word was the {r.prior_site.kind} "
                  f"at {_where(r.prior_site)}:",
                  f"      {r.prior_site.text}"]
    else:
        lines.append(f"  Previous conflicting access {prior} (its site is not recorded: "
                     f"set prior_sites = true in hirace.toml, or pass --prior-sites)")
    lines.append(f"  Scope: {r.scope}")
    if r.count > 1:
        lines.append(f"  ({r.count} racing accesses at this site)")
    return "\n".join(lines)


def render(res: RaceReport) -> str:
    out = [render_race(r) for r in res.races]
    kernels = sorted({r.kernel for r in res.races})
    if res.races:
        out.append("==================")
        out.append(f"SUMMARY: hirace: {len(res.races)} data race{'s' if len(res.races) != 1 else ''} "
                   f"in {len(kernels)} kernel{'s' if len(kernels) != 1 else ''} "
                   f"({', '.join(kernels)}); {res.launches} launch{'es' if res.launches != 1 else ''} checked "
                   f"on the {res.backend} backend")
    else:
        out.append(f"hirace: no data races found ({res.launches} launch{'es' if res.launches != 1 else ''} "
                   f"checked on the {res.backend} backend)")
    if res.launches == 0:
        out.append("hirace: note: the program launched no kernel, so nothing was checked")
    if res.program_exit != 0:
        out.append(f"hirace: the program exited with status {res.program_exit}")
    if res.dropped:
        out.append(f"hirace: {res.dropped} further race records were dropped (raise max_reports)")
    for w in res.warnings:
        out.append(f"hirace: warning: {w}")
    return "\n".join(out) + "\n"
