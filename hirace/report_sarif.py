"""SARIF 2.1.0, so that code-scanning services show races and out-of-bounds accesses inline.

Paths are relative to `%SRCROOT%` (the root every report names files from: `--root`, by default the
git work tree holding the sources, else the current directory; instrument/report_paths.py), given in
originalUriBaseIds, when they lie below it, so a report made in CI matches the repository's files; results carry partial
fingerprints that do not depend on line numbers (an edit above a finding keeps its identity) and
keep distinct findings distinct (`_fingerprints`), the earlier access of a race as a related
location, and the invocation with the exit status. Rules carry their help (text and Markdown) and
a link to their section of the docs. Known benign races are results with `suppressions`. A run
that failed still writes a SARIF file: no results, the failure as a tool notification."""
from __future__ import annotations

import hashlib
import json
import urllib.parse
from pathlib import Path

from instrument.report_paths import ReportPaths

from . import __version__
from .report_text import paths_or_default
from .results import RaceReport

RULE = "hirace/data-race"
OOB_RULE = "hirace/out-of-bounds"
STREAM_RULE = "hirace/unordered-operations"
SRCROOT = "%SRCROOT%"

# hirace's documentation, relative to the project's repository root: the one place that says where it
# is (rules' helpUri, the driver's informationUri); a published copy's URL would replace it here
DOCS_PAGE = "docs/hirace.md"

_RACE_HELP = (
    "Two threads of one launch accessed the same memory word, at least one of them writing, and nothing "
    "ordered the two accesses: no __syncthreads (same block), no __syncwarp (same warp), no atomic of a "
    "wide enough scope; threads of different blocks are never ordered within a launch. The result depends "
    "on the schedule. Fix: put a barrier between the accesses, give each thread its own word, or make both "
    "accesses atomics of the scope that covers both threads. A race known to be benign is marked with "
    "`// hirace: benign-race` on the line of either access, or a `suppress` entry in hirace.toml.")
_OOB_HELP = (
    "An access outside the buffer or array it indexes: before its start, past its end, or outside every "
    "buffer of the program. Under hirace the access does not happen (a read gives zeros, a write is "
    "dropped), so the run goes on; without hirace it corrupts memory or faults. Fix: bound the index by "
    "the buffer's size, or allocate what the kernel indexes.")


_STREAM_HELP = (
    "Two operations the program issued (kernel launches, asynchronous copies or sets) are not ordered by "
    "the host's calls: they are on streams that do not wait for each other, and no synchronisation or "
    "event wait comes between them, so the second may run while the first does. Fix: synchronise the first "
    "one's stream before issuing the second, or record an event after the first and make the second's "
    "stream wait for it (cudaStreamWaitEvent). The second may be the host's own access of managed or "
    "pinned memory such an operation touches, before a synchronisation tells the host it is done: "
    "synchronise its stream (or the device, or an event recorded after it) before the access.")


def _rule(rule_id: str, name: str, short: str, full: str, help_text: str, section: str) -> dict:
    uri = f"{DOCS_PAGE}#{section}"
    return {"id": rule_id, "name": name,
            "shortDescription": {"text": short}, "fullDescription": {"text": full},
            "help": {"text": f"{help_text} More: {uri}",
                     "markdown": f"**{short}**\n\n{help_text}\n\n[hirace documentation]({uri})"},
            "helpUri": uri,
            "defaultConfiguration": {"level": "error"}}


_RULES = [
    _rule(RULE, "DataRace", "Data race in a CUDA kernel",
          "Two accesses to one memory word by different GPU threads, at least one a write, with no barrier or "
          "atomic scope ordering them.", _RACE_HELP, "what-hirace-checks-and-reports"),
    _rule(STREAM_RULE, "UnorderedOperations", "Data race between operations the host does not order",
          "Two operations (kernel launches, copies, sets) on streams that nothing orders touch the same bytes, at "
          "least one writing.", _STREAM_HELP, "races-between-operations-the-host-does-not-order-streams-copies-events"),
    _rule(OOB_RULE, "OutOfBounds", "Out-of-bounds memory access in a CUDA kernel",
          "An access outside the buffer or array it indexes (past its end or before its start), or outside every "
          "buffer of the program.", _OOB_HELP, "out-of-bounds-accesses"),
]


def _artifact(file: str, root: Path) -> dict:
    """A file as the other reports name it (ReportPaths.show): relative to the root, as a reference on
    %SRCROOT%, or an absolute file URI."""
    shown = ReportPaths(root).show(file)
    if Path(shown).is_absolute():
        return {"uri": Path(shown).as_uri()}
    # (a URI reference: a space, `#`, `%` or `?` in a name is percent-encoded, as as_uri does)
    return {"uri": urllib.parse.quote(shown, safe="/"), "uriBaseId": SRCROOT}


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


def _text(site) -> str:
    """A site's source text with its spacing normalised (a reindented line is the same site)."""
    return " ".join(site.text.split()) if site is not None else ""


def _ordering(scope: str) -> str:
    """What a race's scope says was missing, as a word: a same-warp race at a site is not its cross-warp one."""
    return "warp" if scope.startswith("same warp") else "block" if scope.startswith("same block") else "grid"


def _race_key(r, root: Path) -> tuple:
    """A race's identity without line numbers: rule, file, kernel, kind, memory, the missing ordering, the
    site's text and the other access's site (its file and text, or that it is another thread's)."""
    other = ("another thread",) if r.prior_is_other else \
        (_artifact(r.prior_site.file, root)["uri"], _text(r.prior_site)) if r.prior_site else ("unknown",)
    return (RULE, _artifact(r.site.file, root)["uri"], r.kernel, r.kind, r.memory, _ordering(r.scope), _text(r.site),
            *other)


def _mem_key(m, root: Path) -> tuple:
    """An out-of-bounds site's identity: rule, file, kernel, access, memory, the site's text, the buffer and
    which side of it the access fell (not the offset: it moves with the input's sizes)."""
    side = ("outside" if not m.buffer else "before" if m.offset < 0 else "past" if m.offset >= m.buffer_size
            else "across")
    return (OOB_RULE, _artifact(m.site.file, root)["uri"], m.kernel, m.access, m.memory, _text(m.site), m.buffer, side)


def _fingerprints(keyed: list[tuple[tuple, tuple]]) -> list[dict]:
    """Each finding's partial fingerprint, from (its key, its place): findings of equal keys (one text on
    two lines, a race met in two launches) are numbered in the order of their places, so each keeps its
    own identity, and an edit elsewhere in the file changes none of them."""
    order = sorted(range(len(keyed)), key=lambda i: (keyed[i][0], keyed[i][1]))
    seen: dict[tuple, int] = {}
    prints: list[dict] = [{}] * len(keyed)
    for i in order:
        key = keyed[i][0]
        n = seen[key] = seen.get(key, -1) + 1
        digest = hashlib.sha256("\x1f".join(map(str, (*key, n))).encode()).hexdigest()[:32]
        prints[i] = {"hirace/v1": digest}
    return prints


class _At:   # an allocation site as a location
    def __init__(self, file: str, line: int):
        self.file, self.line, self.column, self.text = file, line, 0, ""


def _results(res: RaceReport, root: Path) -> list[dict]:
    results = []
    races = [*res.races, *res.suppressed]
    prints = _fingerprints([(_race_key(r, root), (r.site.line, r.site.column, r.launch)) for r in races] +
                           [(_mem_key(m, root), (m.site.line, m.site.column, m.launch)) for m in res.memory_errors])
    for r, fingerprint in zip(races, prints):
        msg = (f"Data race ({r.kind}) in {r.memory} memory on {r.variable}, kernel '{r.kernel}': "
               f"{r.access} by thread {r.thread} of block {r.block} conflicts with an access by thread "
               f"{r.prior_thread} of block {r.prior_block}; {r.scope}.")
        item = {"ruleId": RULE, "level": "error", "message": {"text": msg},
                "locations": [_location(r.site, root)],
                "partialFingerprints": fingerprint,
                "properties": {"kind": r.kind, "memory": r.memory, "kernel": r.kernel, "count": r.count}}
        if r.prior_site is not None:
            item["relatedLocations"] = [dict(_location(r.prior_site, root, "conflicting access"), id=1)]
        if r.suppressed:   # shown as suppressed by services, not as an alert
            item["suppressions"] = [{"kind": "external" if r.suppressed.startswith("hirace.toml") else "inSource",
                                     "justification": r.suppressed}]
        results.append(item)
    for m, fingerprint in zip(res.memory_errors, prints[len(races):]):
        what = f"{m.where()} {m.buffer}".rstrip()
        msg = (f"Out-of-bounds {m.access} of {m.size} bytes in {m.memory} memory, kernel '{m.kernel}': {what} "
               f"(offset {m.offset}, buffer of {m.buffer_size} bytes) by thread {m.thread} of block {m.block}; "
               f"{m.count} such access{'es' if m.count != 1 else ''} at this site.")
        item = {"ruleId": OOB_RULE, "level": "error", "message": {"text": msg},
                "locations": [_location(m.site, root)],
                "partialFingerprints": fingerprint,
                "properties": {"kind": m.kind, "memory": m.memory, "kernel": m.kernel, "count": m.count}}
        if m.allocated_at:
            item["relatedLocations"] = [dict(_location(_At(*m.allocated_at), root, f"allocation of {m.buffer}",
                                                       with_snippet=False), id=1)]
        results.append(item)
    keyed = [((STREAM_RULE, _artifact(x.second.file, root)["uri"], x.second.op, x.second.kernel,
               _artifact(x.first.file, root)["uri"], x.first.op, x.first.kernel, x.kind, x.buffer),
              (x.second.line, x.first.line)) for x in res.stream_races]
    for x, fingerprint in zip(res.stream_races, _fingerprints(keyed)):
        what = f"bytes [{x.offset}, {x.offset + x.size}) of {x.buffer}" if x.buffer else f"{x.size} bytes of untracked memory"
        second = (f"{x.second.access} by the host" if x.second.host
                  else f"{x.second.access} by {x.second.name()} on {x.second.stream}")
        msg = (f"Data race ({x.kind}) between {'an operation and a host access' if x.second.host else 'operations'} "
               f"the host does not order, on {what}: {second} against {x.first.access} by {x.first.name()} on "
               f"{x.first.stream}. Nothing orders them: {x.order_hint()}.")
        item = {"ruleId": STREAM_RULE, "level": "error", "message": {"text": msg},
                "locations": [_location(_At(x.second.file, x.second.line), root, with_snippet=False)],
                "relatedLocations": [dict(_location(_At(x.first.file, x.first.line), root, "the operation issued first",
                                                    with_snippet=False), id=1)],
                "partialFingerprints": fingerprint,
                "properties": {"kind": x.kind, "buffer": x.buffer, "count": x.count}}
        results.append(item)
    return results


def _document(results: list[dict], invocation: dict, root: Path) -> str:
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "hirace", "version": __version__, "informationUri": DOCS_PAGE,
                                "rules": _RULES}},
            "originalUriBaseIds": {SRCROOT: {"uri": root.as_uri().rstrip("/") + "/"}},
            "results": results,
            "invocations": [invocation],
        }],
    }
    return json.dumps(doc, indent=1) + "\n"


def _root(root: Path | None) -> Path:
    """The root files are named from (the default: every report's, report_text.paths_or_default)."""
    return Path(root).absolute() if root is not None else paths_or_default(None).root


def render(res: RaceReport, exit_code: int | None = None, root: Path | None = None) -> str:
    root = _root(root)
    if exit_code is None:
        exit_code = 1 if res.findings() else (0 if res.program_exit == 0 else 2)
    invocation = {"executionSuccessful": res.program_exit == 0, "exitCode": exit_code,
                  "properties": {"programExitCode": res.program_exit, "launchesChecked": res.launches}}
    return _document(_results(res, root), invocation, root)


def render_failure(message: str, exit_code: int = 2, root: Path | None = None) -> str:
    """The SARIF of a run that produced no result: the tool, the build or the program failed."""
    root = _root(root)
    invocation = {"executionSuccessful": False, "exitCode": exit_code,
                  "toolExecutionNotifications": [{"level": "error", "message": {"text": message}}]}
    return _document([], invocation, root)


__all__ = ["render", "render_failure", "RULE", "OOB_RULE", "DOCS_PAGE"]
