"""Turns on the device: runs that use the GPU take one of a few slots, held across the threads and
processes of one host by file locks in the campaign's scratch directory. One slot (the default) keeps
each run alone on the device, for clean timings; more let runs share it when only verdicts count."""
from __future__ import annotations

import contextlib
import fcntl
import os
import time

from . import host_builds


@contextlib.contextmanager
def device_turn(campaign: str, slots: int = 1):
    """Hold one of `slots` turns on this host's device for the campaign while the block runs."""
    root = host_builds.scratch_root(campaign)
    fds = [os.open(root / f"device-turn-{i}.lock", os.O_RDWR | os.O_CREAT, 0o600) for i in range(max(1, slots))]
    held = None
    try:
        if len(fds) == 1:   # alone on the device: wait in line
            fcntl.flock(fds[0], fcntl.LOCK_EX)
            held = fds[0]
        delay = 0.001
        while held is None:
            for fd in fds:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    held = fd
                    break
                except BlockingIOError:
                    continue
            if held is None:
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        yield
    finally:
        if held is not None:
            fcntl.flock(held, fcntl.LOCK_UN)
        for fd in fds:
            os.close(fd)
