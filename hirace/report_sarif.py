"""SARIF 2.1.0, so that code-scanning tools show races inline."""
from __future__ import annotations

import json
from pathlib import Path

from . import __version__
from .results import RaceReport

RULE = "hirace/data-race"
OOB_RULE = "hirace/out-of-bounds"


def _location(site, message: str | None = None) -> dict:
    loc = {"physicalLocation": {
        "artifactLocation": {"uri": Path(site.file).resolve().as_uri()},
        "region": {"startLine": site.line, "startColumn": site.column,
                   "snippet": {"text": site.text}}}}
    if message:
        loc["message"] = {"text": message}
    return loc


def render(res: RaceReport) -> str:
    results = []
    for r in res.races:
        msg = (f"Data race ({r.kind}) in {r.memory} memory on {r.variable}, kernel '{r.kernel}': "
               f"{r.access} by thread {r.thread} of block {r.block} conflicts with an access by thread "
               f"{r.prior_thread} of block {r.prior_block}; {r.scope}.")
        item = {"ruleId": RULE, "level": "error", "message": {"text": msg},
                "locations": [_location(r.site)],
                "properties": {"kind": r.kind, "memory": r.memory, "kernel": r.kernel}}
        if r.prior_site is not None:
            item["relatedLocations"] = [dict(_location(r.prior_site, "conflicting access"), id=1)]
        results.append(item)
    for m in res.memory_errors:
        what = f"{m.where()} {m.buffer}".rstrip()
        msg = (f"Out-of-bounds {m.access} of {m.size} bytes in {m.memory} memory, kernel '{m.kernel}': {what} "
               f"(offset {m.offset}, buffer of {m.buffer_size} bytes) by thread {m.thread} of block {m.block}; "
               f"{m.count} such access{'es' if m.count != 1 else ''} at this site.")
        item = {"ruleId": OOB_RULE, "level": "error", "message": {"text": msg},
                "locations": [_location(m.site)],
                "properties": {"kind": m.kind, "memory": m.memory, "kernel": m.kernel, "count": m.count}}
        if m.allocated_at:
            item["relatedLocations"] = [{"id": 1, "message": {"text": f"allocation of {m.buffer}"},
                                         "physicalLocation": {
                                             "artifactLocation": {"uri": Path(m.allocated_at[0]).resolve().as_uri()},
                                             "region": {"startLine": m.allocated_at[1]}}}]
        results.append(item)
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "hirace", "version": __version__,
                "rules": [{"id": RULE, "name": "DataRace",
                           "shortDescription": {"text": "Data race in a CUDA kernel"},
                           "fullDescription": {"text": "Two accesses to one memory word by different GPU "
                                                       "threads, at least one a write, with no barrier or "
                                                       "atomic scope ordering them."},
                           "defaultConfiguration": {"level": "error"}},
                          {"id": OOB_RULE, "name": "OutOfBounds",
                           "shortDescription": {"text": "Out-of-bounds memory access in a CUDA kernel"},
                           "fullDescription": {"text": "An access outside the buffer or array it indexes "
                                                       "(past its end or before its start), or outside "
                                                       "every buffer of the program."},
                           "defaultConfiguration": {"level": "error"}}]}},
            "results": results,
            "invocations": [{"executionSuccessful": res.program_exit == 0,
                             "exitCode": 1 if res.races or res.memory_errors else (0 if res.program_exit == 0 else 2),
                             "properties": {"programExitCode": res.program_exit,
                                            "launchesChecked": res.launches}}],
        }],
    }
    return json.dumps(doc, indent=1) + "\n"
