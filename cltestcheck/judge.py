"""Judge one run of a test: against the suite's expectations, or against a reference run."""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from .captured import Captured
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


def _same_file(got: Captured | None, want: Captured | None, tolerance: float | None) -> str:
    if got is None:
        return "was not written"
    if want is None:
        return "was written, but not by the reference run"
    return same_file(got, want, tolerance)


def expected_stdout(test: TestCase) -> Captured | None:
    """The test's stated stdout: text from cltc.toml, or a Captured (an expected-output file, read in
    chunks when it is compared; a reference run's output in mutate)."""
    return Captured.of_text(test.stdout) if isinstance(test.stdout, str) else test.stdout


def judge(test: TestCase, obs: Observed, reference: Observed | None = None) -> Verdict:
    """Pass when the run behaves as expected: the suite's expectations first;
    where the suite states none, the reference run's output (if given)."""
    if obs.timed_out:
        return Verdict(False, f"timed out after {obs.wall_s:.1f}s")
    if obs.fault:
        return Verdict(False, f"cpu backend stopped it: {obs.fault}")
    if test.pytest:
        summary = obs.stdout.head   # (a node's summary is short: kept whole)
        if obs.exit_code in (0, 5) and summary.startswith(("passed", "skipped")):
            return Verdict(True)
        if obs.exit_code < 0:
            return Verdict(False, f"pytest crashed ({obs.exit_code})")
        return Verdict(False, summary.splitlines()[0] if summary else f"pytest exit status {obs.exit_code}")
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
    want_out = expected_stdout(test) if test.stdout is not None else (reference.stdout if reference else None)
    if want_out is not None:
        diff = same_output(obs.stdout, want_out, test.tolerance)
        if diff:
            return Verdict(False, f"stdout differs: {diff}")
    for name, expected in test.output_files.items():
        want = Captured.of_file(expected, binary=True)
        diff = _same_file(obs.files.get(name), want, test.tolerance)
        if diff:
            return Verdict(False, f"output file {name}: {diff}")
    return Verdict(True)


# ---------------------------------------------------------------- comparing outputs longer than their excerpt

def same_output(got: Captured, want: Captured, tolerance: float | None) -> str:
    """'' when equal (within tolerance for numbers), else where they differ: judge.same_text's
    answer, reached by reading both in chunks when either is longer than its excerpt."""
    if got.complete and want.complete:
        return same_text(got.head, want.head, tolerance)
    if tolerance is None:
        return "" if got == want else _line_difference(got, want)
    return _token_difference(got, want, tolerance)


def same_file(got: Captured, want: Captured, tolerance: float | None) -> str:
    """'' when a file a test wrote equals the expected one: its bytes, or with a tolerance its numbers
    where both are UTF-8 text."""
    if got == want:
        return ""
    if tolerance is not None:
        try:
            return _token_difference(got, want, tolerance)
        except UnicodeDecodeError:
            pass
    return "content differs"


def _pieces(c: Captured, split):
    """The lines (split=_lines) or tokens (split=_tokens) of an output, one at a time; memory is
    bounded by the longest line or token, not by the output."""
    carry = ""
    for chunk in c.chunks():
        parts, carry = split(carry + chunk)
        yield from parts
    if carry:
        yield carry


def _lines(text: str):
    kept = text.splitlines(keepends=True)
    carry = ""
    if kept and (kept[-1].splitlines()[0] == kept[-1] or kept[-1].endswith("\r")):   # the line (or its \r\n) may go on
        carry = kept.pop()
    return [ln.splitlines()[0] for ln in kept], carry


def _tokens(text: str):
    parts = text.split()
    if parts and not text[-1].isspace():
        return parts[:-1], parts[-1]
    return parts, ""


def _line_difference(got: Captured, want: Captured) -> str:
    ng = nw = 0
    for a, b in itertools.zip_longest(_pieces(got, _lines), _pieces(want, _lines)):
        ng, nw = ng + (a is not None), nw + (b is not None)
        if a is not None and b is not None and a != b:
            return f"line {ng}: got {a[:80]!r}, expected {b[:80]!r}"
    return f"got {ng} lines, expected {nw}" if ng != nw else "differs in whitespace"


def _token_difference(got: Captured, want: Captured, tolerance: float) -> str:
    ng, nw = sum(1 for _ in _pieces(got, _tokens)), sum(1 for _ in _pieces(want, _tokens))
    if ng != nw:
        return f"got {ng} tokens, expected {nw}"
    for i, (a, b) in enumerate(zip(_pieces(got, _tokens), _pieces(want, _tokens))):
        if a != b:
            diff = same_text(a, b, tolerance)
            if diff:
                return diff.replace("token 1:", f"token {i + 1}:")
    return ""
