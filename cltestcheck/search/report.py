"""What `cltc search` prints and writes: the inputs it kept and what each adds, its findings (races with
the input that shows them, NaN and Inf its tests did not print), what stays unreached (with the least
distance a run came to a branch arm, where it measured one), and the runs that failed. Files are named
as every cltc report names them (`paths`: relative to the root)."""
from __future__ import annotations

import json

from instrument.report_paths import ReportPaths

from .goals import shown
from .loop import SearchResult
from .suite_out import special_text


def _where(place: str, paths: ReportPaths) -> str:
    """FILE:LINE:COL with FILE as the reports name it."""
    file, line, col = place.rsplit(":", 2)
    return f"{paths.show(file)}:{line}:{col}"


def _goal(g, paths: ReportPaths) -> str:
    return f"{paths.show(g.file)}:{g.line}: [{g.function}] {g.label}"


def _adds(text: str, paths: ReportPaths) -> str:
    return shown(text, paths.show)


def _race(r: dict, paths: ReportPaths) -> str:
    prior = f", against {_where(r['prior'], paths)} ({r['prior_text']})" if r["prior"] else ""
    return (f"{r['kind']} race in {r['memory']} memory on {r['variable'] or '?'} in kernel {r['kernel']}: "
            f"{r['access']} at {_where(r['site'], paths)} ({r['text']}){prior}")


def written(res: SearchResult) -> str:
    """The file the kept inputs are written to, in the output folder (suite_out.py)."""
    from .suite_out import SUITE_FILE, CommandWriter, PytestWriter
    if res.command:
        return CommandWriter.FILE
    return PytestWriter.FILE if res.kind == "pytest" else SUITE_FILE


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _total(res: SearchResult) -> tuple[int, int, int]:
    """(reached, total, reached by the tests) of the items coverage's TOTAL counts (branch arms, loop
    cases, barriers; a function entered is a goal, listed when not reached, not counted)."""
    counted = [g for g in res.goals if not g.suppressed and g.category != "function"]
    return (sum(g.key in res.reached_by for g in counted), len(counted),
            sum(g.key in res.seed_reached for g in counted))


def render_text(res: SearchResult, paths: ReportPaths, quiet: bool = False, verbose: bool = False) -> str:
    reached, total, by_tests = _total(res)
    lines = []
    if not quiet:
        what = f"-- {res.command}" if res.command else paths.show(res.suite)
        lines.append(f"cltc search: {what} ({res.backend} backend, seed {res.seed}, budget {res.budget})")
        replay = f" ({res.replayed} of them from the journal)" if res.replayed else ""
        first = "the command as given" if res.command else "the suite's tests"
        last = f" (the last input kept: run {res.kept[-1].run})" if res.kept else ""
        lines.append(f"Ran {first}, then {_plural(res.runs, 'generated input')}{replay}; "
                     f"{res.wall_s:.1f} s in all, the builds included; stopped: {res.stopped}{last}.")
        lines.append(f"Distance-guided: {_plural(res.comparisons, 'branch comparison')} and "
                     f"{_plural(res.loops, 'loop condition')} measured, "
                     f"{_plural(res.episodes, 'episode')}.")
        if res.kept:
            lines += ["", f"Kept {_plural(len(res.kept), 'input')}, written as tests to {res.out / written(res)}:"]
            for k in res.kept:
                how = "; ".join(k.inp.how)
                lines.append(f"  {k.name}  (run {k.run}) from {k.inp.parent}: {how}")
                if verbose or len(k.adds) <= 4:
                    lines += [f"      + {_adds(a, paths)}" for a in k.adds]
                else:
                    lines += [f"      + {_adds(a, paths)}" for a in k.adds[:3]] + \
                             [f"      + ... {len(k.adds) - 3} more (-v)"]
                if k.why != "coverage":
                    lines.append(f"      ! {special_text(k.why, k.where)}")
    if res.specials:
        lines += ["", f"NaN/Inf ({len(res.specials)}): where the suite's tests showed none"]
        for f in res.specials:
            where = f.get("where", "its output")
            said = f": {f['stdout'].strip()[:100]!r}" if where == "its output" else ""
            lines.append(f"  {f['input']}: {special_text(f['kind'], where)} (test '{f['seed']}' showed none){said}")
    if res.checked_races:
        if res.races:
            lines += ["", f"Races ({len(res.races)}): each with the first input that shows it (hirace, "
                          f"{res.backend} backend)"]
            for r in res.races:
                lines.append(f"  {_race(r, paths)}")
                lines.append(f"      shown by {r['input']}" + (f" (from test '{r['seed']}')"
                                                               if not r['input'].startswith("test ") else ""))
        elif not quiet:
            lines += ["", f"Races: none on {_plural(len(res.race_checks), 'input')} checked under hirace"]
        for name, why in res.race_checks.items():
            if why and not quiet:
                lines.append(f"  (not checked: {name}: {why})")
    unreached = res.unreached()
    if unreached:
        lines += ["", f"Not reached ({len(unreached)}), with the closest a run came where a distance was measured:"]
        for g in unreached:
            near = res.closest.get(g.key)
            if near:
                lines.append(f"  {_goal(g, paths)}   closest: distance {near[0]} ({near[1]})")
                made = res.closest_inputs.get(g.key)
                if made and verbose:
                    how = "; ".join(made["how"]) or "as it is"
                    lines.append(f"      {near[1]}: test '{made['test']}', from {made['from']}: {how}")
            else:
                why = res.no_distance.get(g.key)
                lines.append(f"  {_goal(g, paths)}" + (f"   no distance: {why}" if why and verbose else ""))
    if res.failures and not quiet:
        kinds: dict[str, int] = {}
        for f in res.failures:
            kinds[f["why"]] = kinds.get(f["why"], 0) + 1
        lines += ["", f"Runs that failed ({len(res.failures)}, not kept): "
                  + "; ".join(f"{n} {why}" for why, n in sorted(kinds.items(), key=lambda kv: -kv[1]))]
        if verbose:
            lines += [f"  {f['run']} (from test '{f['seed']}': {'; '.join(f['how'])}): {f['why']}" for f in res.failures]
    if res.warnings and not quiet:
        lines += [""] + [f"warning: {w}" for w in res.warnings]
    findings = []
    if res.checked_races:
        findings.append(_plural(len(res.races), "race"))
    findings.append(f"{len(res.specials)} NaN/Inf")
    lines += ["" if lines else None, f"SEARCH  kept {_plural(len(res.kept), 'input')}; reached {reached}/{total} "
                                     f"items (the tests: {by_tests}); {', '.join(findings)}"]
    return "\n".join(x for x in lines if x is not None) + "\n"


def render_json(res: SearchResult, paths: ReportPaths) -> str:
    reached, total, by_tests = _total(res)

    def goal(g) -> dict:
        d = {"category": g.category, "function": g.function, "file": paths.show(g.file), "line": g.line,
             "label": g.label}
        if g.key in res.closest:
            d["closest"] = {"distance": res.closest[g.key][0], "input": res.closest[g.key][1],
                            **res.closest_inputs.get(g.key, {})}
        elif g.key in res.no_distance:
            d["no_distance"] = res.no_distance[g.key]
        return d

    doc = {
        "tool": "cltc search", "suite": paths.show(res.suite), "command": res.command or None,
        "root": str(paths.root), "backend": res.backend, "written": str(res.out / written(res)),
        "seed": res.seed, "budget": res.budget, "out": str(res.out), "stopped": res.stopped,
        "runs": {"generated": res.runs, "replayed": res.replayed, "failed": len(res.failures),
                 "last_kept": res.kept[-1].run if res.kept else None, "wall_s": round(res.wall_s, 2)},
        "distance": {"comparisons": res.comparisons, "loops": res.loops, "episodes": res.episodes},
        "items": {"reached": reached, "total": total, "by_tests": by_tests},
        "kept": [{"name": k.name, "run": k.run, "test": k.test.name, "from": k.inp.parent, "how": list(k.inp.how),
                  "args": list(k.inp.args), "exit_code": k.exit_code, "why": k.why, "where": k.where or None,
                  "adds": [_adds(a, paths) for a in k.adds]} for k in res.kept],
        "findings": {
            "races": [{**{k: v for k, v in r.items() if k not in ("site", "prior")},
                       "site": _where(r["site"], paths), "prior": _where(r["prior"], paths) if r["prior"] else None}
                      for r in res.races] if res.checked_races else None,
            "nan_inf": res.specials},
        "unreached": [goal(g) for g in res.unreached()],
        "failures": res.failures,
        "warnings": res.warnings,
    }
    return json.dumps(doc, indent=2) + "\n"
