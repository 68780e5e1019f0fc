"""Judge one run of a test: against the suite's expectations, or against a reference run."""
from __future__ import annotations

import math
from dataclasses import dataclass

from .observed import Observed
from .suite import TestCase


@dataclass
class Verdict:
    passed: bool
    reason: str = ""


def _number(tok: str) -> float | None:
    try:
        return float(tok.rstrip(",;"))
    except ValueError:
        return None


def same_text(got: str, want: str, tolerance: float | None) -> str:
    """'' when equal (within tolerance for numbers), else where they differ."""
    if tolerance is None:
        if got == want:
            return ""
        g, w = got.splitlines(), want.splitlines()
        for i, (a, b) in enumerate(zip(g, w)):
            if a != b:
                return f"line {i + 1}: got {a[:80]!r}, expected {b[:80]!r}"
        return f"got {len(g)} lines, expected {len(w)}" if len(g) != len(w) else "differs in whitespace"
    g, w = got.split(), want.split()
    if len(g) != len(w):
        return f"got {len(g)} tokens, expected {len(w)}"
    for i, (a, b) in enumerate(zip(g, w)):
        if a == b:
            continue
        x, y = _number(a), _number(b)
        if x is None or y is None:
            return f"token {i + 1}: got {a[:40]!r}, expected {b[:40]!r}"
        if math.isnan(x) and math.isnan(y):
            continue
        if not abs(x - y) <= tolerance * max(1.0, abs(y)):
            return f"token {i + 1}: got {a}, expected {b} (tolerance {tolerance:g})"
    return ""


def _same_bytes(got: bytes | None, want: bytes | None, tolerance: float | None) -> str:
    if got is None:
        return "was not written"
    if want is None:
        return "was written, but not by the reference run"
    if tolerance is not None:
        try:
            return same_text(got.decode(), want.decode(), tolerance)
        except UnicodeDecodeError:
            pass
    return "" if got == want else "content differs"


def judge(test: TestCase, obs: Observed, reference: Observed | None = None) -> Verdict:
    """Pass when the run behaves as expected: the suite's expectations first;
    where the suite states none, the reference run's output (if given)."""
    if obs.timed_out:
        return Verdict(False, f"timed out after {obs.wall_s:.1f}s")
    if obs.fault:
        return Verdict(False, f"cpu backend stopped it: {obs.fault}")
    if test.pytest:
        if obs.exit_code in (0, 5) and obs.stdout.startswith(("passed", "skipped")):
            return Verdict(True)
        if obs.exit_code < 0:
            return Verdict(False, f"pytest crashed ({obs.exit_code})")
        return Verdict(False, obs.stdout.splitlines()[0] if obs.stdout else f"pytest exit status {obs.exit_code}")
    if obs.exit_code < 0:
        import signal
        try:
            name = signal.Signals(-obs.exit_code).name
        except ValueError:
            name = f"signal {-obs.exit_code}"
        return Verdict(False, f"crashed with {name}")
    want_exit = test.exit_code if reference is None or test.has_expectation else reference.exit_code
    if obs.exit_code != want_exit:
        return Verdict(False, f"exit status {obs.exit_code}, expected {want_exit}")
    want_out = test.stdout if test.stdout is not None else (reference.stdout if reference else None)
    if want_out is not None:
        diff = same_text(obs.stdout, want_out, test.tolerance)
        if diff:
            return Verdict(False, f"stdout differs: {diff}")
    for name, expected in test.output_files.items():
        want = expected.read_bytes()
        diff = _same_bytes(obs.files.get(name), want, test.tolerance)
        if diff:
            return Verdict(False, f"output file {name}: {diff}")
    return Verdict(True)
