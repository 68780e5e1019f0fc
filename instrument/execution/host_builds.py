"""Builds made once per host: a directory per build under the host's scratch directory for the
campaign, guarded by a file lock so that the workers of one host (threads or processes) build it
once; the outcome (value or failure) is pickled next to it for the others."""
from __future__ import annotations

import fcntl
import os
import pickle
import shutil
import tempfile
import threading
import traceback
from pathlib import Path

from .. import reaper
from ..errors import UserError
from ..ownership import private_dir
from .task import BuildOutcome, HostBuild

_OUTCOME = "build-outcome.pickle"
_memo: dict[tuple[str, str], BuildOutcome] = {}
_memo_lock = threading.Lock()


def _scratch_base() -> Path:
    """This user's scratch directory on the host, private to them (builds and their pickled outcomes
    are read back from there: ownership.private_dir refuses one another user could write)."""
    return private_dir(Path(os.environ.get("CCTK_SCRATCH") or tempfile.gettempdir()) / f"cctk-{os.getuid()}")


def scratch_root(campaign: str) -> Path:
    """This host's scratch directory for a campaign (made on first use)."""
    root = _scratch_base() / campaign
    root.mkdir(exist_ok=True)
    return root


def watch_scratch(campaign: str) -> None:
    """The campaign's scratch directory on this host goes with the process running the campaign,
    however it ends (reaper.watch_dir: SIGKILL included); called there, not in its workers."""
    reaper.watch_dir(_scratch_base() / campaign)


def remove_scratch(campaign: str) -> None:
    try:
        base = _scratch_base()
    except UserError:
        return
    shutil.rmtree(base / campaign, ignore_errors=True)
    reaper.unwatch_dir(base / campaign)
    with _memo_lock:
        for k in [k for k in _memo if k[0] == campaign]:
            del _memo[k]


def obtain(build: HostBuild, campaign: str) -> tuple[BuildOutcome, bool]:
    """The build's outcome on this host, building it if no one has; (outcome, built by this call)."""
    with _memo_lock:
        hit = _memo.get((campaign, build.key))
    if hit is not None:
        return hit, False
    root = scratch_root(campaign)
    work = root / build.key
    with open(root / f"{build.key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            saved = work / _OUTCOME
            if saved.is_file():
                outcome, made = pickle.loads(saved.read_bytes()), False
            else:
                shutil.rmtree(work, ignore_errors=True)   # a builder that died left it half made
                work.mkdir(parents=True)
                try:
                    outcome = BuildOutcome(build.fn(work, *build.args))
                except UserError as e:
                    outcome = BuildOutcome(error=e.message + (f" ({e.hint})" if e.hint else ""))
                except Exception as e:   # a crash in our build code must not take the worker down
                    where = traceback.extract_tb(e.__traceback__)[-1]
                    outcome = BuildOutcome(error=f"{type(e).__name__}: {e} (at {where.filename}:{where.lineno})")
                tmp = work / f".{_OUTCOME}.tmp"
                tmp.write_bytes(pickle.dumps(outcome))
                tmp.replace(saved)
                made = True
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    with _memo_lock:
        _memo[(campaign, build.key)] = outcome
    return outcome, made
