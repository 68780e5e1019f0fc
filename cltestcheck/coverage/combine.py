"""`cltc coverage combine IN.json...`: the coverage JSON reports of several runs (CI shards, a GPU run
and a cpu one, a suite and a project's command) merged as coverage.py's combine merges its data
files: an item is its file, line, column and kind (results.merge_runs), covered when some run covered
it; each run's tests stay tests of the result (a name two files share is told apart by its file).
Each report's `data` section holds what a merge needs (report_json.data). Relative file names are the
root's: combine resolves them against its own root (--root; by default the git work tree holding the
current directory), so reports written in different checkouts of one project merge. Refused, naming
the files: a file that is not a cltc coverage JSON report or whose data is of another format, two runs
that measured different versions of one source (its digest differs), flags with counts of executions."""
from __future__ import annotations

import json
import os
from pathlib import Path

from instrument.errors import UserError
from instrument.files import not_regular
from instrument.report_paths import ReportPaths

from ..judge import Verdict
from .report_json import DATA_FORMAT
from .results import CoverageResult, TestCoverage, merge_runs
from .sites import SiteTable

HINT = "give JSON reports written by `cltc coverage --json` of this version of cltc"


def read(path: Path) -> dict:
    """A coverage JSON report's `data` section, checked."""
    why = not_regular(path)
    if why == "no such":
        raise UserError(f"combine: {path}: no such file")
    if why:
        raise UserError(f"combine: {path}: is {why}", hint=HINT)
    try:
        doc = json.loads(Path(path).read_bytes())
    except (ValueError, UnicodeDecodeError) as exc:
        raise UserError(f"combine: {path}: not JSON ({exc})", hint=HINT) from None
    if not isinstance(doc, dict) or doc.get("tool") != "cltc coverage":
        raise UserError(f"combine: {path}: not a cltc coverage JSON report", hint=HINT)
    data = doc.get("data")
    if not isinstance(data, dict):
        raise UserError(f"combine: {path}: holds no `data` section to merge (written by an older cltc)",
                        hint="rerun that coverage with this cltc's --json")
    if data.get("format") != DATA_FORMAT:
        raise UserError(f"combine: {path}: its coverage data is of format {data.get('format')!r}; this cltc "
                        f"merges format {DATA_FORMAT}", hint="rerun that coverage with this cltc's --json")
    return {**data, "backend": doc.get("backend", ""), "warnings": doc.get("warnings", [])}


def _tests(data: dict) -> list[TestCoverage]:
    out = []
    for t in data["tests"]:
        tc = TestCoverage(t["name"], Verdict(t["passed"], t["reason"]), float(t["wall_s"]), t["collected"],
                          flags=set(t["flags"]), counts={int(k): v for k, v in t["counts"].items()},
                          barrier_counts={int(k): v for k, v in t["barrier_counts"].items()},
                          barrier_flags=set(t["barrier_flags"]), divergences=list(t["divergences"]),
                          divergence_total=t["divergence_total"])
        out.append(tc)
    return out


def combine(inputs: list[Path], paths: ReportPaths) -> CoverageResult:
    """The merged result of the reports `inputs`, their relative file names resolved against `paths`' root."""
    seen: dict[str, Path] = {}
    for p in inputs:
        key = os.path.realpath(p)
        if key in seen:
            twice = f"{p} is given twice" if str(p) == str(seen[key]) else f"{seen[key]} and {p} are one file"
            raise UserError(f"combine: {twice}", hint="name each report once")
        seen[key] = p
    datas = [(Path(p), read(Path(p))) for p in inputs]
    executions = {bool(d["executions"]) for _, d in datas}
    if len(executions) > 1:
        counting = [str(p) for p, d in datas if d["executions"]]
        flags = [str(p) for p, d in datas if not d["executions"]]
        raise UserError(f"combine: {counting[0]} counts executions (--count-executions) and {flags[0]} holds "
                        f"flags: they cannot be merged", hint="combine runs measured the same way")
    digests: dict[str, tuple[str, Path]] = {}
    runs: list[tuple[SiteTable, TestCoverage]] = []
    suppressed: set[tuple[str, int]] = set()
    per_input: list[list[TestCoverage]] = []
    backends: set[str] = set()
    warnings: list[str] = []
    for p, d in datas:
        try:
            for f, digest in d["sources"].items():
                f = paths.absolute(f)
                if digest is None:
                    continue
                if f in digests and digests[f][0] != digest:
                    raise UserError(f"combine: {digests[f][1]} and {p} measured different versions of "
                                    f"{paths.show(f)} (its contents differ)",
                                    hint="combine runs of one version of the sources")
                digests.setdefault(f, (digest, p))
            table = SiteTable.from_json(d["table"]).with_files(paths.absolute)
            tests = _tests(d)
            for f, lines in d["suppressed"].items():
                suppressed.update((paths.absolute(f), int(n)) for n in lines)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise UserError(f"combine: {p}: its `data` section is damaged ({type(exc).__name__}: {exc})",
                            hint=HINT) from None
        per_input.append(tests)
        runs += [(table, t) for t in tests]
        backends.update(b for b in str(d["backend"]).split("+") if b)
        warnings += [f"{p}: {w}" for w in d["warnings"] if isinstance(w, str)]
    # a test name two reports share is told apart by its report
    names: dict[str, int] = {}
    for tests in per_input:
        for n in {t.name for t in tests}:
            names[n] = names.get(n, 0) + 1
    for (p, _), tests in zip(datas, per_input):
        for t in tests:
            if names[t.name] > 1:
                t.name = f"{t.name} ({p})"
    table, tests = merge_runs(runs)
    missing = sorted({f.file for f in table.functions if not os.path.isfile(f.file)})
    if missing:   # (the reports still merge; the HTML pages cannot show those sources)
        warnings.append(f"{len(missing)} source file(s) the reports name are not here ({paths.show(missing[0])}"
                        f"{', ...' if len(missing) > 1 else ''}): relative names are the root's ({paths.root}); "
                        f"give combine the --root the runs had, or run it in their checkout")
    return CoverageResult(str(paths.root), "+".join(sorted(backends)) or "unknown", table, tests, warnings,
                          lambda file, line: (os.path.normpath(file), line) in suppressed,
                          executions=executions.pop(), combined=[str(p) for p in inputs], paths=paths)
