"""The readable report, in the style of ThreadSanitizer's. Files are named as every report names them
(`paths`: relative to the root, `--root`; absolute outside it: instrument/report_paths.py)."""
from __future__ import annotations

import os

from instrument.report_paths import ReportPaths, report_paths

from .results import GRAPH_NODE, MemError, Race, RaceReport, StreamRace


def paths_or_default(paths: ReportPaths | None) -> ReportPaths:
    """`paths`, or those of a report made without a root: the git work tree holding the current
    directory, else the current directory."""
    return paths or report_paths(None, os.getcwd())


def _where(site, paths: ReportPaths) -> str:
    return f"{paths.show(site.file)}:{site.line}:{site.column}"


def _xyz(t) -> str:
    return f"({t[0]},{t[1]},{t[2]})"


def render_race(r: Race, prior_sites: bool = True, paths: ReportPaths | None = None) -> str:
    paths = paths_or_default(paths)
    lines = [
        "==================",
        f"WARNING: hirace: data race ({r.kind}) in {r.memory} memory, kernel '{r.kernel}' (launch {r.launch})",
        f"  {r.access.capitalize()} of {r.variable} (byte offset {r.offset}) at {_where(r.site, paths)} "
        f"by thread {_xyz(r.thread)} of block {_xyz(r.block)}:",
        f"      {r.site.text}",
    ]
    prior = f"by thread {_xyz(r.prior_thread)} of block {_xyz(r.prior_block)}"
    if r.prior_is_other:
        lines.append("  Previous conflicting access by another thread that shares the word at this scope "
                     "(several threads accessed it since the last barrier)")
    elif r.prior_site is not None:
        lines += [f"  Previous access {prior}; its last access to this word was the {r.prior_site.kind} "
                  f"at {_where(r.prior_site, paths)}:",
                  f"      {r.prior_site.text}"]
    elif r.prior_budgeted:
        lines.append(f"  Previous conflicting access {prior} (its site is not recorded: this buffer kept no prior "
                     f"sites then, for hirace's memory budget; it keeps them from the next launch on, and "
                     f"--sites-budget 0 keeps them for every buffer)")
    elif prior_sites:
        lines.append(f"  Previous conflicting access {prior} (its site is unknown: the word's recorded accesses "
                     f"do not include it)")
    else:
        lines.append(f"  Previous conflicting access {prior} (its site is not recorded: prior sites are off, "
                     f"by prior_sites = false or --no-prior-sites)")
    lines.append(f"  Scope: {r.scope}")
    if r.count > 1:
        lines.append(f"  ({r.count} racing accesses at this site)")
    return "\n".join(lines)


def render_stream_race(x: StreamRace, paths: ReportPaths | None = None) -> str:
    """A race between two operations the host does not order (hirace/host_streams.h)."""
    paths = paths_or_default(paths)
    if x.buffer:
        what = f"bytes [{x.offset}, {x.offset + x.size}) of {x.buffer}"
    else:
        what = f"{x.size} bytes at address {x.offset:#x} (memory hirace does not track)"

    def side(o, prefix: str) -> str:
        verb = {"read": "read", "write": "write", "atomic": "atomic access"}[o.access]
        if o.host:   # (hirace/host_access.h: its line, where the program was built with line tables)
            where = f"{paths.show(o.file)}:{o.line}" if o.file else "an unknown place (code without line tables)"
            return f"  {prefix}{verb} by the host at {where}, before anything orders the first for it"
        issued = "launched" if o.op == "kernel" else "called"
        on = o.stream.removeprefix(GRAPH_NODE)
        stream = f"the {on}" if on.endswith("default stream") else f"stream {on}"
        if on != o.stream:   # (a node of a graph: where it was added or captured)
            return f"  {prefix}{verb} by {o.name()} at {paths.show(o.file)}:{o.line}, a node of a graph launched on {stream}"
        return f"  {prefix}{verb} by {o.name()} {issued} at {paths.show(o.file)}:{o.line} on {stream}"

    between = "an operation and a host access" if x.second.host else "operations"
    lines = [
        "==================",
        f"WARNING: hirace: data race ({x.kind}) between {between} the host does not order, on {what}",
        side(x.first, "First: "),
        side(x.second, "Then:  "),
    ]
    if x.allocated_at:
        lines.append(f"  {x.buffer} was allocated at {paths.show(x.allocated_at[0])}:{x.allocated_at[1]}")
    lines.append(f"  Nothing orders them: {x.order_hint()}")
    if x.count > 1:
        lines.append(f"  ({x.count} times between these two places)")
    return "\n".join(lines)


def render_memory_error(m: MemError, paths: ReportPaths | None = None) -> str:
    paths = paths_or_default(paths)
    buf = m.buffer or ""
    if m.buffer and m.buffer_size:
        buf = f"the {m.buffer_size}-byte {'array' if m.allocated_at is None else 'buffer'} {m.buffer}"
    where = f"at byte offset {m.offset}: {m.where()} {buf}".rstrip() if m.buffer else m.where()
    lines = [
        "==================",
        f"ERROR: hirace: out-of-bounds {m.access} in {m.memory} memory, kernel '{m.kernel}' (launch {m.launch})",
        f"  {m.access.capitalize()} of {m.size} bytes {where}",
        f"    at {_where(m.site, paths)} by thread {_xyz(m.thread)} of block {_xyz(m.block)}:",
        f"      {m.site.text}",
    ]
    if m.allocated_at:
        lines.append(f"  {m.buffer} was allocated at {paths.show(m.allocated_at[0])}:{m.allocated_at[1]}")
    lines.append("  The access did not happen: a read gave zeros, a write was dropped")
    if m.count > 1:
        lines.append(f"  ({m.count} out-of-bounds accesses at this site)")
    return "\n".join(lines)


def _plural(n: int, word: str, suffix: str = "s") -> str:
    return f"{n} {word}{suffix if n != 1 else ''}"


def _what_ran(res: RaceReport, paths: ReportPaths, shown: int = 10) -> str:
    """How much the run checked: the sites that ran, and where the others are (a race there is one
    this input did not exercise)."""
    line = f"hirace: {res.sites_ran} of {_plural(res.sites_total, 'instrumented access site')} ran"
    if not res.never_ran:
        return line
    where = ", ".join(f"{paths.show(r.file)}:{r.line}" for r in res.never_ran[:shown])
    more = f" and {len(res.never_ran) - shown} more" if len(res.never_ran) > shown else ""
    return f"{line}; never ran on this input (not checked): {where}{more}"


def _findings(res: RaceReport, print_limit: int, paths: ReportPaths) -> list[str]:
    """The findings' reports, races first, at most print_limit of them (0: all), and how many more there are."""
    out = [render_race(r, res.prior_sites, paths) for r in res.races] + \
        [render_stream_race(x, paths) for x in res.stream_races] + \
        [render_memory_error(m, paths) for m in res.memory_errors]
    if print_limit and len(out) > print_limit:
        more = len(out) - print_limit
        out = out[:print_limit] + [f"hirace: {_plural(more, 'further finding')} not printed (print limit "
                                   f"{print_limit}: --print-limit, print_limit; JSON, SARIF and JUnit hold every finding)"]
    return out


def render(res: RaceReport, print_limit: int = 0, quiet: bool = False, paths: ReportPaths | None = None) -> str:
    """The report; `quiet`: only the findings and the verdict line (what else there was, counted on it)."""
    paths = paths_or_default(paths)
    out = _findings(res, print_limit, paths)
    kernels = sorted({r.kernel for r in res.races} | {m.kernel for m in res.memory_errors} |
                     {o.kernel for x in res.stream_races for o in (x.first, x.second) if o.kernel})
    checked = f"{_plural(res.launches, 'launch', 'es')} checked" + (f" on the {res.backend} backend" if res.backend else "")
    if res.failed_launches:
        checked += f"; {_plural(res.failed_launches, 'launch', 'es')} failed and ran nothing"
    if res.unselected:
        checked += f"; {_plural(res.unselected, 'launch', 'es')} of kernels not selected ran unchecked"
    warnings = ([f"hirace: {res.dropped} further race records were dropped (raise max_reports)"] if res.dropped
                else []) + [f"hirace: warning: {w}" for w in res.warnings]
    if quiet and warnings:
        checked += f"; {_plural(len(warnings), 'warning')} not shown (-q)"
    if res.findings():
        found = [x for x in (_plural(len(res.races), "data race") if res.races else "",
                             _plural(len(res.stream_races), "data race") + " between unordered operations"
                             if res.stream_races else "",
                             _plural(len(res.memory_errors), "out-of-bounds access site")
                             if res.memory_errors else "") if x]
        out.append("==================")
        within = f" in {_plural(len(kernels), 'kernel')} ({', '.join(kernels)})" if kernels else ""   # (copies, host)
        out.append(f"SUMMARY: hirace: {' and '.join(found)}{within}; {checked}")
    else:
        out.append(f"hirace: no data races found ({checked})")
    if quiet:
        return "\n".join(out) + "\n"
    if res.suppressed:
        out.append(f"hirace: {_plural(len(res.suppressed), 'known benign race')} suppressed (not findings):")
        for r in res.suppressed:
            out.append(f"  {_where(r.site, paths)}: {r.kind} on {r.variable} in kernel '{r.kernel}': {r.suppressed}")
    if res.sites_total:
        out.append(_what_ran(res, paths))
    elif res.sites_total is None and res.launches and res.backend == "gpu":
        out.append("hirace: note: which sites ran was not recorded (--sites-ran, or sites_ran = true, records it "
                   "on the GPU; the cpu backend always does)")
    if res.launches == 0:
        out.append("hirace: note: every launch was of a kernel not selected (kernels, kernels_exclude, --kernel-name, "
                   "--kernel-name-exclude), so nothing was checked" if res.unselected else
                   f"hirace: note: every launch of the program failed ({res.failed_launches}), so nothing was checked"
                   if res.failed_launches else "hirace: note: the program launched no kernel, so nothing was checked")
    if res.program_exit != 0:
        out.append(f"hirace: the program exited with status {res.program_exit}")
    out += warnings
    return "\n".join(out) + "\n"


def render_launches(res: RaceReport) -> str:
    """Each launch and what was reported against it (hirace run -v)."""
    out = []
    for x in res.kernel_launches:
        what = ("failed: not run" if x.failed else "not selected: run unchecked" if not x.selected else
                f"{_plural(x.races, 'race')}, {_plural(x.memory_errors, 'out-of-bounds site')}"
                + (" (its quiet version)" if x.quiet else ""))
        out.append(f"hirace: launch {x.id}: kernel '{x.kernel}', grid {_xyz(x.grid)}, block {_xyz(x.block)}: {what}")
    return "".join(line + "\n" for line in out)
