"""Amplification reports: text summary, JSON, and a plot per schedule-dependent test."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

from instrument.errors import UserError

from ..report_files import paths_of, shown
from .engine import AmplifyResult


def _test_lines(t, verbose: bool = False) -> list[str]:
    """A test's verdict line and, unless it is stable, its outputs and the schedules that changed it or
    hung (`verbose`: every schedule, of every test)."""
    n = sum(s.runs for s in t.schedules)
    lines = [f"{t.name}: {t.verdict.upper()} ({len(t.schedules)} schedules, {n} runs, {t.blocks} blocks)"]
    if t.verdict == "stable" and not verbose:
        return lines
    for i, text in enumerate(t.outputs):
        label = "reference" if i == 0 else f"output {i}"
        lines.append(f"  {label}: {text.strip()[:120]!r}")
    for s in t.schedules:
        if s.hangs:
            lines.append(f"  schedule {s.schedule}: HANGS in {s.hangs} of {s.runs} runs")
        if set(s.outputs) - {0} or (verbose and s.outputs):
            parts = ", ".join(f"{'reference' if k == 0 else 'output ' + str(k)} x{v}"
                              for k, v in sorted(s.outputs.items()))
            lines.append(f"  schedule {s.schedule}: {parts}")
    return lines


def render_text(res: AmplifyResult, quiet: bool = False, verbose: bool = False, paths=None) -> str:
    """The report; `quiet`: only the tests that are not stable and the verdict line (the notes
    counted); `verbose`: every schedule of every test."""
    what = res.command or shown(res.suite, paths)(res.suite)   # (relative to the root, --root)
    lines = [] if quiet else [f"cltc amplify: {what} ({res.backend} backend), schedules '{res.family}' "
                              f"(seed {res.seed}), {res.runs_per_schedule} run(s) per schedule", ""]
    for t in res.unstable if quiet else res.tests:
        lines += _test_lines(t, verbose)
    if lines:
        lines.append("")
    bad = res.unstable
    lines.append(f"{len(res.tests) - len(bad)} stable, "
                 f"{sum(t.verdict == 'schedule-dependent' for t in bad)} schedule-dependent, "
                 f"{sum(t.verdict == 'hangs' for t in bad)} hang"
                 + (f"; {len(res.warnings)} note(s) not shown (-q)" if quiet and res.warnings else ""))
    for w in [] if quiet else res.warnings:
        lines.append(f"note: {w}")
    return "\n".join(lines) + "\n"


def junit_suite(res: AmplifyResult, elapsed: float):
    """JUnit (`--junit`, instrument/junit.py): a case per test (with a command: the command), a failure
    when it is schedule-dependent or hangs (its report lines the failure's text), its schedules and runs
    as the output of a stable one."""
    from instrument.junit import Case, Problem, Suite
    classname = "cltc.amplify." + (res.command.split()[0] if res.command else os.path.basename(res.suite))
    cases = []
    for t in res.tests:
        case = Case(t.name, classname)
        text = "\n".join(_test_lines(t, verbose=True))
        if t.verdict == "stable":
            case.output = text
        else:
            changed = [s.schedule for s in t.schedules if s.hangs or set(s.outputs) - {0}]
            shown = ", ".join(changed[:10]) + (f" and {len(changed) - 10} more" if len(changed) > 10 else "")
            what = "hangs under" if t.verdict == "hangs" else "its outcome changes under"
            case.failures.append(Problem(f"{t.verdict}: {what} {shown}", f"cltc/{t.verdict}", text))
        cases.append(case)
    return Suite("cltc amplify", cases, elapsed)


def render_json(res: AmplifyResult, paths=None) -> str:
    paths = paths_of(res.suite, paths)   # the suite relative to the root (--root)
    doc = {"tool": "cltc amplify", "suite": paths.show(res.suite), "root": str(paths.root), **({"command": res.command} if res.command else {}),
           "backend": res.backend, "family": res.family,
           "seed": res.seed, "runs_per_schedule": res.runs_per_schedule, "warnings": res.warnings,
           "tests": [{"name": t.name, "verdict": t.verdict, "blocks": t.blocks, "outputs": t.outputs,
                      "schedules": [{"schedule": s.schedule, "runs": s.runs, "hangs": s.hangs,
                                     "outputs": {str(k): v for k, v in sorted(s.outputs.items())},
                                     "matching_reference": round(t.matching(s), 4)} for s in t.schedules]}
                     for t in res.tests]}
    return json.dumps(doc, indent=1) + "\n"


def write_plots(res: AmplifyResult, out_dir: Path) -> list[Path]:
    """One PNG per schedule-dependent test: fraction of runs matching the reference, per schedule
    (the first-block schedules in block order, like the spmv figure of CLTestCheck)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    names = plot_names([t.name for t in res.unstable])
    for t in res.unstable:
        firsts = [s for s in t.schedules if s.schedule.startswith("first:")]
        others = [s for s in t.schedules if not s.schedule.startswith("first:")]
        fig, ax = plt.subplots(figsize=(6, 3))
        xs = [int(s.schedule[6:]) for s in firsts]
        if firsts:
            ax.plot(xs, [t.matching(s) for s in firsts], "o-", label="block W first")
        for i, s in enumerate(others):
            ax.axhline(t.matching(s), linestyle=":", color=f"C{i + 1}", label=s.schedule)
        ax.set_ylim(-0.05, 1.05)
        ax.set_xlabel("first block W")
        ax.set_ylabel("runs matching reference")
        ax.set_title(f"{t.name}: {t.verdict}")
        ax.legend(fontsize=7, loc="best")
        fig.tight_layout()
        p = inside(out_dir, names[t.name])
        fig.savefig(p, dpi=100)
        plt.close(fig)
        written.append(p)
    return written


def plot_names(tests: list[str]) -> dict[str, str]:
    """Test name -> its plot's file name: letters, digits, '.', '-' and '_' only (a test name is the
    suite's text, or a pytest node id, and may hold '/', '..' or a whole path), never starting with
    '.', and distinct where two names sanitise alike."""
    out, taken = {}, set()
    for name in tests:
        stem = re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".")[:120] or "test"
        candidate, n = stem, 1
        while candidate.lower() in taken:
            n += 1
            candidate = f"{stem}-{n}"
        taken.add(candidate.lower())
        out[name] = f"{candidate}.png"
    return out


def inside(out_dir: Path, name: str) -> Path:
    """out_dir/name, verified to stay in out_dir once symlinks are followed (a symlink left there
    could otherwise lead the write elsewhere)."""
    p = out_dir / name
    if p.resolve().parent != out_dir.resolve():
        raise UserError(f"{p}: leads out of the plot directory {out_dir} (to {p.resolve()}); not written",
                        hint="remove it, or give --plots a new directory")
    return p
