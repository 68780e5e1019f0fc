"""JSON report: {"races": [...], "stream_races": [...], "memory_errors": [...], "suppressed": [...], "summary": {...}}
(the contract scripts rely on; a suppressed race says what suppressed it). Files are named relative
to the root (`summary.root`, `--root`), absolute outside it (instrument/report_paths.py)."""
from __future__ import annotations

import dataclasses
import json

from instrument.report_paths import ReportPaths

from .report_text import paths_or_default
from .results import Race, RaceReport


def _checked(s) -> str:
    """How a race's access was checked: whole always, or whole where the launch broke its proof's
    condition (a site whose proof held is never checked whole, so it reports no race)."""
    return "whole" if not s.proof else f"whole (its proof, {s.proof}, needs a launch condition this launch broke)"


def _race(r: Race, paths: ReportPaths) -> dict:
    d = dataclasses.asdict(r)
    d["site"] = {"file": paths.show(r.site.file), "line": r.site.line, "column": r.site.column, "text": r.site.text,
                 "checked": _checked(r.site)}
    if r.prior_site is not None:
        d["prior_site"] = {"file": paths.show(r.prior_site.file), "line": r.prior_site.line,
                           "column": r.prior_site.column, "text": r.prior_site.text, "checked": _checked(r.prior_site)}
    for k in ("thread", "block", "prior_thread", "prior_block"):
        d[k] = list(d[k])
    if not r.suppressed:
        del d["suppressed"]
    return d


def to_dict(res: RaceReport, paths: ReportPaths | None = None) -> dict:
    paths = paths_or_default(paths)
    races = [_race(r, paths) for r in res.races]
    mem = []
    for m in res.memory_errors:
        d = dataclasses.asdict(m)
        d["site"] = {"file": paths.show(m.site.file), "line": m.site.line, "column": m.site.column, "text": m.site.text}
        d["allocated_at"] = ({"file": paths.show(m.allocated_at[0]), "line": m.allocated_at[1]}
                             if m.allocated_at else None)
        d["where"] = m.where()
        for k in ("thread", "block"):
            d[k] = list(d[k])
        mem.append(d)
    streams = []
    for x in res.stream_races:
        d = dataclasses.asdict(x)
        for side in ("first", "second"):
            d[side]["file"] = paths.show(d[side]["file"])
        d["allocated_at"] = ({"file": paths.show(x.allocated_at[0]), "line": x.allocated_at[1]}
                             if x.allocated_at else None)
        d["order_hint"] = x.order_hint()
        streams.append(d)
    return {"races": races, "stream_races": streams, "memory_errors": mem,
            "suppressed": [_race(r, paths) for r in res.suppressed],
            "summary": {"races": len(res.races), "stream_races": len(res.stream_races),
                        "memory_errors": len(res.memory_errors),
                        "suppressed": len(res.suppressed),
                        "launches": res.launches, "failed_launches": res.failed_launches,
                        "unselected_launches": res.unselected, "dropped": res.dropped,
                        "sites": None if res.sites_total is None else {
                            "total": res.sites_total, "ran": res.sites_ran,
                            "never_ran": [{"file": paths.show(r.file), "line": r.line, "column": r.column, "text": r.text}
                                          for r in res.never_ran]},
                        "backend": res.backend, "granularity_bytes": res.granularity,
                        "prior_sites": res.prior_sites,
                        "program_exit": res.program_exit, "warnings": res.warnings,
                        "root": str(paths.root)}}


def render(res: RaceReport, paths: ReportPaths | None = None) -> str:
    return json.dumps(to_dict(res, paths), indent=1) + "\n"


def render_failure(message: str, exit_code: int = 2, paths: ReportPaths | None = None) -> str:
    """The JSON of a run that produced no result (the tool, the build or the program failed, or the
    program timed out): no findings, and an `error` saying why, so a script never reads it as clean."""
    return json.dumps({"races": [], "stream_races": [], "memory_errors": [], "suppressed": [],
                       "summary": {"error": message, "exit_status": exit_code,
                                   "root": str(paths_or_default(paths).root)}}, indent=1) + "\n"
