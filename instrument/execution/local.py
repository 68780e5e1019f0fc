"""The default executor: `jobs` tasks at once on this machine (threads, or processes for tasks
that are Python work rather than waiting on a child process)."""
from __future__ import annotations

import os
import time
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from typing import Iterator

from .. import reaper
from . import host_builds
from .task import Done, Task
from .worker import execute


class LocalExecutor:
    def __init__(self, jobs: int, processes: bool = False):
        self.workers = max(1, jobs)
        self.processes = processes
        kind = "process" if processes else "thread"
        self.description = f"{self.workers} local {kind}{'es' if processes and self.workers > 1 else 's' if self.workers > 1 else ''}"

    def run(self, tasks: list[Task], campaign: str) -> Iterator[Done]:
        host_builds.watch_scratch(campaign)
        if self.workers <= 1 or len(tasks) <= 1:
            for t in tasks:
                t0 = time.perf_counter()
                done = execute(t, campaign)
                done.queue_s = max(0.0, time.perf_counter() - t0 - done.build_s - done.run_s)
                yield done
            return
        with self._pool() as pool:
            submitted: dict[Future, tuple[Task, float]] = {}
            for t in tasks:
                submitted[pool.submit(execute, t, campaign)] = (t, time.perf_counter())
            try:
                for f in as_completed(submitted):
                    task, t0 = submitted[f]
                    try:
                        done = f.result()
                    except Exception as e:    # a worker process died (BrokenProcessPool)
                        done = Done(task.key, error=f"the local worker process died: {type(e).__name__}: {e}")
                    done.queue_s = max(0.0, time.perf_counter() - t0 - done.build_s - done.run_s)
                    yield done
            finally:
                for f in submitted:
                    f.cancel()

    def _pool(self):
        """Threads, or worker processes that die with this one: a tool killed by SIGKILL or
        SIGTERM runs no cleanup of its own, and a worker left behind would keep building and
        running (reaper.die_with_parent). The pool is made and shut down by this thread, which
        outlives it, as the parent-death signal needs."""
        if not self.processes:
            return ThreadPoolExecutor(max_workers=self.workers)
        return ProcessPoolExecutor(max_workers=self.workers, initializer=reaper.die_with_parent,
                                   initargs=(os.getpid(),))

    def cleanup(self, campaign: str) -> None:
        host_builds.remove_scratch(campaign)

    def close(self) -> None:
        pass
