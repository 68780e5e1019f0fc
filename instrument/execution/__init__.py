"""One execution layer for campaigns of build and run jobs (indigo-bench sweep, cltc mutate,
cltc amplify, hirace selftest): local threads or processes by default, Dask's distributed
scheduler with `--dask local|tcp://HOST:PORT|SCHEDULER.json`."""
from __future__ import annotations

import argparse

from ..cli_support import positive_int
from ..errors import UserError
from .campaign import Campaign, Stats
from .task import BuildOutcome, Done, HostBuild, Task


def add_options(p: argparse.ArgumentParser, jobs_help: str = "tasks at once (default 1)") -> None:
    p.add_argument("-j", "--jobs", type=positive_int, default=1, metavar="N",
                   help=jobs_help + "; with --dask local on the cpu backend: the number of workers")
    p.add_argument("--dask", metavar="WHERE",
                   help="run the tasks on Dask: 'local' starts a cluster here (one worker per GPU on the gpu "
                        "backend, -j workers on the cpu backend); tcp://HOST:PORT or a scheduler file "
                        "submits to a running scheduler")


def open_executor(dask: str | None, jobs: int, backend_name: str, processes: bool = False):
    """The executor the options ask for. Close it when done."""
    if jobs < 1:
        raise UserError("-j/--jobs must be at least 1")
    if dask:
        from .dask_cluster import DaskExecutor
        return DaskExecutor(dask, jobs, backend_name)
    from .local import LocalExecutor
    return LocalExecutor(jobs, processes)


__all__ = ["Campaign", "Stats", "Task", "HostBuild", "BuildOutcome", "Done", "add_options", "open_executor"]
