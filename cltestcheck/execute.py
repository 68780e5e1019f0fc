"""Run one test of a suite with a built program: a fresh directory, its input files, its outputs."""
from __future__ import annotations

import os
from pathlib import Path

from instrument.backends import Backend

from .observed import Observed
from .suite import Suite, TestCase
from instrument.reaper import temp_dir


def run_test(backend: Backend, exe: Path, suite: Suite, test: TestCase, env: dict | None = None,
             timeout: float | None = None) -> Observed:
    """Run `exe` as `test` says, in a scratch directory that holds the test's input files.
    For a pytest suite, `exe` is the kernel library's manifest and the test a pytest node."""
    if suite.is_pytest:
        from .pytest_suite import run_node
        return run_node(backend, exe, suite.root, test.name, env, timeout or test.timeout)
    with temp_dir(prefix="cltc-run-") as tmp:
        cwd = Path(tmp)
        for rel in test.files:
            dst = cwd / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(suite.root / rel, dst)
        res = backend.run(exe, test.args, env=env, timeout=timeout or test.timeout, stdin=test.stdin, cwd=cwd)
        fault = backend.fault_detail(res)
        files = {}
        for name in test.output_files:
            p = cwd / name
            files[name] = p.read_bytes() if p.is_file() else None
        return Observed(res.returncode, res.stdout, res.stderr, res.wall_s, res.timed_out, fault, files)
