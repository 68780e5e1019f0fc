"""Run one test of a suite with a built program; the suite's kind says how (a program in a scratch
directory with the test's files, or a pytest node against a kernel library)."""
from __future__ import annotations

from pathlib import Path

from instrument.backends import Backend

from .observed import Observed
from .suite import Suite, TestCase


def run_test(backend: Backend, exe: Path, suite: Suite, test: TestCase, env: dict | None = None,
             timeout: float | None = None) -> Observed:
    return suite.kind.run(backend, exe, suite, test, env, timeout or test.timeout)
