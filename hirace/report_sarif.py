"""SARIF 2.1.0, so that code-scanning services show races and out-of-bounds accesses inline.

Paths are relative to `%SRCROOT%` (the directory hirace ran in, given in originalUriBaseIds) when
they lie below it, so a report made in CI matches the repository's files; results carry partial
fingerprints that do not depend on line numbers (an edit above a finding keeps its identity), the
earlier access of a race as a related location, and the invocation with the exit status. Known
benign races are results with `suppressions`. A run that failed still writes a SARIF file: no
results, the failure as a tool notification."""
from __future__ import annotations

import hashlib
import json
import urllib.parse
from pathlib import Path

from . import __version__
from .results import RaceReport

RULE = "hirace/data-race"
OOB_RULE = "hirace/out-of-bounds"
SRCROOT = "%SRCROOT%"

_RULES = [
    {"id": RULE, "name": "DataRace",
     "shortDescription": {"text": "Data race in a CUDA kernel"},
     "fullDescription": {"text": "Two accesses to one memory word by different GPU threads, at least one a "
                                 "write, with no barrier or atomic scope ordering them."},
     "defaultConfiguration": {"level": "error"}},
    {"id": OOB_RULE, "name": "OutOfBounds",
     "shortDescription": {"text": "Out-of-bounds memory access in a CUDA kernel"},
     "fullDescription": {"text": "An access outside the buffer or array it indexes (past its end or before "
                                 "its start), or outside every buffer of the program."},
     "defaultConfiguration": {"level": "error"}},
]


def _artifact(file: str, root: Path) -> dict:
    p = Path(file).resolve()
    try:
        rel = p.relative_to(root)
    except ValueError:
        return {"uri": p.as_uri()}
    # (a URI reference: a space, `#`, `%` or `?` in a name is percent-encoded, as as_uri does)
    return {"uri": urllib.parse.quote(rel.as_posix(), safe="/"), "uriBaseId": SRCROOT}


def _location(site, root: Path, message: str | None = None, with_snippet: bool = True) -> dict:
    region = {"startLine": site.line}
    if getattr(site, "column", None):
        region["startColumn"] = site.column
    if with_snippet and getattr(site, "text", None):
        region["snippet"] = {"text": site.text}
    loc = {"physicalLocation": {"artifactLocation": _artifact(site.file, root), "region": region}}
    if message:
        loc["message"] = {"text": message}
    return loc


def _fingerprint(*parts) -> dict:
    """A line-independent identity of a finding: rule, file, kernel, the source text of its sites."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:32]
    return {"hirace/v1": digest}


class _At:   # an allocation site as a location
    def __init__(self, file: str, line: int):
        self.file, self.line, self.column, self.text = file, line, 0, ""


def _results(res: RaceReport, root: Path) -> list[dict]:
    results = []
    for r in [*res.races, *res.suppressed]:
        msg = (f"Data race ({r.kind}) in {r.memory} memory on {r.variable}, kernel '{r.kernel}': "
               f"{r.access} by thread {r.thread} of block {r.block} conflicts with an access by thread "
               f"{r.prior_thread} of block {r.prior_block}; {r.scope}.")
        item = {"ruleId": RULE, "level": "error", "message": {"text": msg},
                "locations": [_location(r.site, root)],
                "partialFingerprints": _fingerprint(RULE, _artifact(r.site.file, root)["uri"], r.kernel, r.kind,
                                                    r.site.text, r.prior_site.text if r.prior_site else ""),
                "properties": {"kind": r.kind, "memory": r.memory, "kernel": r.kernel, "count": r.count}}
        if r.prior_site is not None:
            item["relatedLocations"] = [dict(_location(r.prior_site, root, "conflicting access"), id=1)]
        if r.suppressed:   # shown as suppressed by services, not as an alert
            item["suppressions"] = [{"kind": "external" if r.suppressed.startswith("hirace.toml") else "inSource",
                                     "justification": r.suppressed}]
        results.append(item)
    for m in res.memory_errors:
        what = f"{m.where()} {m.buffer}".rstrip()
        msg = (f"Out-of-bounds {m.access} of {m.size} bytes in {m.memory} memory, kernel '{m.kernel}': {what} "
               f"(offset {m.offset}, buffer of {m.buffer_size} bytes) by thread {m.thread} of block {m.block}; "
               f"{m.count} such access{'es' if m.count != 1 else ''} at this site.")
        item = {"ruleId": OOB_RULE, "level": "error", "message": {"text": msg},
                "locations": [_location(m.site, root)],
                "partialFingerprints": _fingerprint(OOB_RULE, _artifact(m.site.file, root)["uri"], m.kernel,
                                                    m.access, m.site.text, m.buffer),
                "properties": {"kind": m.kind, "memory": m.memory, "kernel": m.kernel, "count": m.count}}
        if m.allocated_at:
            item["relatedLocations"] = [dict(_location(_At(*m.allocated_at), root, f"allocation of {m.buffer}",
                                                       with_snippet=False), id=1)]
        results.append(item)
    return results


def _document(results: list[dict], invocation: dict, root: Path) -> str:
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "hirace", "version": __version__, "rules": _RULES}},
            "originalUriBaseIds": {SRCROOT: {"uri": root.as_uri() + "/"}},
            "results": results,
            "invocations": [invocation],
        }],
    }
    return json.dumps(doc, indent=1) + "\n"


def render(res: RaceReport, exit_code: int | None = None, root: Path | None = None) -> str:
    root = (root or Path.cwd()).resolve()
    if exit_code is None:
        exit_code = 1 if res.races or res.memory_errors else (0 if res.program_exit == 0 else 2)
    invocation = {"executionSuccessful": res.program_exit == 0, "exitCode": exit_code,
                  "properties": {"programExitCode": res.program_exit, "launchesChecked": res.launches}}
    return _document(_results(res, root), invocation, root)


def render_failure(message: str, exit_code: int = 2, root: Path | None = None) -> str:
    """The SARIF of a run that produced no result: the tool, the build or the program failed."""
    root = (root or Path.cwd()).resolve()
    invocation = {"executionSuccessful": False, "exitCode": exit_code,
                  "toolExecutionNotifications": [{"level": "error", "message": {"text": message}}]}
    return _document([], invocation, root)


__all__ = ["render", "render_failure", "RULE", "OOB_RULE"]
