"""The worker side: obtain the host's build, run the task, time both, never raise."""
from __future__ import annotations

import contextlib
import socket
import sys
import time
import traceback

from ..errors import UserError
from . import host_builds
from .device_turns import device_turn
from .task import Done, Task



def where() -> str:
    # only a dask worker has distributed imported; elsewhere importing it would cost ~0.5 s a process
    dist = sys.modules.get("distributed")
    if dist is not None:
        try:
            return f"{socket.gethostname()} {dist.get_worker().address}"
        except ValueError:    # not inside a worker
            pass
    return socket.gethostname()


def execute(task: Task, campaign: str) -> Done:
    t0 = time.perf_counter()
    outcome, made = None, False
    if task.build is not None:
        outcome, made = host_builds.obtain(task.build, campaign)
    done = Done(task.key, build_s=time.perf_counter() - t0, built=made, where=where())
    t1 = None
    try:
        # runs that use the device take turns on it, across the threads and processes of this host
        with (device_turn(campaign, task.device_slots) if task.device else contextlib.nullcontext()):
            t1 = time.perf_counter()     # waiting for the device is queueing, not running
            done.value = task.fn(outcome, *task.args)
    except UserError as e:
        done.error = str(e)
    except Exception as e:
        last = traceback.extract_tb(e.__traceback__)[-1]
        done.error = f"{type(e).__name__}: {e} (at {last.filename}:{last.lineno})"
    done.run_s = time.perf_counter() - t1 if t1 is not None else 0.0
    return done
