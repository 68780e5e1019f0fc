"""`cltc search --junit FILE`: the search as JUnit XML (over the shared writer, instrument/junit.py), so a
CI test reporter lists what it found: a case per input kept (a failure where it shows NaN or Inf its
test did not; the items it adds as its output), a case per race with the input that shows it (a
failure), and a case per item that stays unreached (skipped, with the closest distance a run came to
it, or why none was measured)."""
from __future__ import annotations

from instrument import junit
from instrument.report_paths import ReportPaths

from .loop import SearchResult
from .report import _adds, _goal, _race
from .suite_out import special_text


def suite(res: SearchResult, paths: ReportPaths, elapsed: float) -> junit.Suite:
    cases = []
    for k in res.kept:
        found = [f for f in res.specials if f["input"] == k.name]
        cases.append(junit.Case(
            k.name, "cltc.search.kept",
            failures=[junit.Problem(f"{special_text(f['kind'], f.get('where', ''))} (test '{f['seed']}' showed none)",
                                    "cltc/nan-inf", f"{k.name}: made from {k.inp.parent}: {'; '.join(k.inp.how)}")
                      for f in found],
            output="\n".join([f"made from {k.inp.parent}: {'; '.join(k.inp.how)}",
                              *(f"adds: {_adds(a, paths)}" for a in k.adds)]) + "\n"))
    for r in res.races:
        text = _race(r, paths)
        cases.append(junit.Case(f"{r['kind']} race in {r['kernel']} at {text.split(' at ', 1)[-1].split(' ')[0]}",
                                "cltc.search.races",
                                failures=[junit.Problem(text, "hirace/data-race",
                                                        f"{text}\nshown by {r['input']} (written to {res.out})")]))
    for g in res.unreached():
        near = res.closest.get(g.key)
        why = (f"not reached; closest: distance {near[0]} ({near[1]})" if near else
               f"not reached; no distance: {res.no_distance.get(g.key, 'not measured')}")
        cases.append(junit.Case(_goal(g, paths), "cltc.search.unreached", skipped=why))
    return junit.Suite("cltc search", cases, elapsed)
