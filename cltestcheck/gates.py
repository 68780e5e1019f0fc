"""CI gates: thresholds a run must reach (coverage.py's --fail-under, Stryker's `break`), and the
one line per measure that fell short. A command that misses a gate exits 1."""
from __future__ import annotations

from instrument.errors import UserError

COVERAGE_MEASURES = ("total", "branches", "loops", "barriers")
# Stryker's thresholds that grade a mutation score: good at or above HIGH, poor under LOW (the
# defaults of --high and --low, and of cltc.toml's high and low)
HIGH, LOW = 80.0, 60.0


def percent(text: str, option: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise UserError(f"{option}: '{text}' is not a percentage", hint="give a number from 0 to 100") from None
    if not 0.0 <= v <= 100.0:
        raise UserError(f"{option}: {text} is not between 0 and 100")
    return v


def coverage_thresholds(values: list[str] | None) -> dict[str, float]:
    """--fail-under PCT (the total) or MEASURE=PCT (branches, loops, barriers, total), repeatable."""
    out: dict[str, float] = {}
    for v in values or []:
        measure, _, pct = v.rpartition("=")
        measure = measure.strip() or "total"
        if measure not in COVERAGE_MEASURES:
            raise UserError(f"--fail-under: unknown measure '{measure}'",
                            hint="use PCT for the total, or one of " + ", ".join(f"{m}=PCT" for m in COVERAGE_MEASURES))
        out[measure] = percent(pct, "--fail-under")
    return out


def coverage_shortfalls(covered: dict[str, tuple[int, int]], thresholds: dict[str, float]) -> list[str]:
    """One line per measure under its threshold; `covered` maps a measure to (covered, total). A
    measure with no items passes (nothing to cover)."""
    out = []
    for measure, need in thresholds.items():
        got, total = covered[measure]
        if total and 100.0 * got / total < need:
            out.append(f"{measure} coverage {100.0 * got / total:.1f}% ({got}/{total}) is under "
                       f"--fail-under {'' if measure == 'total' else measure + '='}{need:g}")
    return out


def mutation_shortfall(score: float | None, break_at: float | None) -> str | None:
    """Stryker's `break`: a mutation score under it fails the run (no judged mutant: no score, no failure)."""
    if break_at is None or score is None or score >= break_at:
        return None
    return f"mutation score {score:.1f}% is under --break {break_at:g}"


def mutation_thresholds(high: str | None, low: str | None, break_at: float | None) -> dict[str, float]:
    """Stryker's thresholds: high (default HIGH) and low (default LOW) grade the score; break fails
    the run. low may not exceed high."""
    out = {"high": HIGH if high is None else percent(high, "--high"),
           "low": LOW if low is None else percent(low, "--low")}
    if out["low"] > out["high"]:
        raise UserError(f"mutation thresholds: low {out['low']:g} is above high {out['high']:g}",
                        hint="low must be at most high (Stryker's rule)")
    if break_at is not None:
        out["break"] = break_at
    return out
