"""Tasks on Dask's distributed scheduler: a LocalCluster started here (`--dask local`: one worker
per visible GPU, pinned with CUDA_VISIBLE_DEVICES, or N single-threaded CPU workers) or an
existing scheduler (`--dask tcp://HOST:PORT`, or a scheduler file written by `dask scheduler
--scheduler-file`).

A task whose worker dies is resubmitted, at most MAX_RETRIES times, then reported failed with
the reason; everything else about failures is the task's own business (worker.execute never raises).
"""
from __future__ import annotations

import logging
import os
import subprocess
import time
import uuid
from pathlib import Path
from typing import Iterator

from ..errors import UserError
from . import host_builds
from .task import Done, Task
from .worker import execute

MAX_RETRIES = 2
CONNECT_TIMEOUT = "30s"


def _import_distributed():
    try:
        import dask
        import distributed
    except ImportError:
        raise UserError("--dask needs Dask's distributed scheduler, which is not installed",
                        hint="pip install 'cuda-correctness-toolkit[dask]' (or: pip install 'dask[distributed]')") from None
    return dask, distributed


def visible_gpus() -> list[str]:
    """The GPUs this process may use: CUDA_VISIBLE_DEVICES when set, else what nvidia-smi lists."""
    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env is not None:
        return [d.strip() for d in env.split(",") if d.strip() and d.strip() != "-1"]
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=index", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [ln.strip() for ln in out.stdout.splitlines() if ln.strip().isdigit()] if out.returncode == 0 else []


def _local_cluster(jobs: int, backend_name: str):
    dask, distributed = _import_distributed()
    from distributed import Nanny, Scheduler, SpecCluster

    quiet = {"silence_logs": logging.ERROR, "dashboard_address": None, "memory_limit": 0, "nthreads": 1}
    if backend_name == "gpu":
        gpus = visible_gpus()
        if not gpus:
            raise UserError("--dask local on the gpu backend: no GPU is visible (CUDA_VISIBLE_DEVICES, nvidia-smi)")
        workers = {f"gpu{d}": {"cls": Nanny, "options": {**quiet, "env": {"CUDA_VISIBLE_DEVICES": d}}}
                   for d in gpus}
        what = f"{len(gpus)} workers, one per GPU ({', '.join(gpus)})"
    else:
        n = max(1, jobs)
        workers = {f"cpu{i}": {"cls": Nanny, "options": dict(quiet)} for i in range(n)}
        what = f"{n} cpu worker{'s' if n > 1 else ''}"
    # our own cluster: the first death of a worker fails its task at once (we resubmit it
    # ourselves, counting), and a worker holds only the task it is running
    dask.config.set({"distributed.scheduler.allowed-failures": 0,
                     "distributed.scheduler.worker-saturation": 1.0})
    cluster = SpecCluster(workers=workers, silence_logs=logging.ERROR,
                          scheduler={"cls": Scheduler, "options": {"dashboard_address": "127.0.0.1:0", "host": "127.0.0.1"}})
    return cluster, what


class DaskExecutor:
    def __init__(self, address: str, jobs: int, backend_name: str):
        dask, distributed = _import_distributed()
        from distributed import Client

        self.cluster = None
        if address == "local":
            self.cluster, what = _local_cluster(jobs, backend_name)
            self.client = Client(self.cluster)
            self.retries = MAX_RETRIES
            self.description = f"dask LocalCluster at {self.cluster.scheduler_address}: {what}"
        else:
            try:
                if address.endswith(".json") and Path(address).is_file():
                    self.client = Client(scheduler_file=address, timeout=CONNECT_TIMEOUT)
                else:
                    self.client = Client(address, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError) as e:
                raise UserError(f"cannot reach the dask scheduler at {address}: {e}",
                                hint="start one with `dask scheduler` and workers with `dask worker ADDRESS "
                                     "--nthreads 1`, or use --dask local") from None
            # the scheduler resubmits a dead worker's task itself `allowed-failures` times
            # before it tells us; we add retries only up to MAX_RETRIES in all
            theirs = self.client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.allowed_failures)
            self.retries = max(0, MAX_RETRIES - int(theirs))
            n = len(self.client.scheduler_info(n_workers=-1)["workers"])
            self.description = f"dask scheduler {address}: {n} worker{'s' if n != 1 else ''}"
        self.workers = max(1, len(self.client.scheduler_info(n_workers=-1)["workers"]))

    def worker_pids(self) -> dict[str, int]:
        return self.client.run(os.getpid)

    def run(self, tasks: list[Task], campaign: str) -> Iterator[Done]:
        from distributed import as_completed
        from distributed.scheduler import KilledWorker

        submitted = {}
        batch = uuid.uuid4().hex[:8]     # dask keys must be new for every submission

        def submit(i: int, attempt: int, t0: float | None = None):
            fut = self.client.submit(execute, tasks[i], campaign, key=f"cctk-{campaign}-{batch}-{i}-{attempt}", pure=False)
            submitted[fut] = (i, attempt, t0 or time.perf_counter())
            return fut

        ac = as_completed([submit(i, 0) for i in range(len(tasks))])
        try:
            for fut in ac:
                i, attempt, t0 = submitted.pop(fut)
                try:
                    done = fut.result()
                except KilledWorker as e:
                    if attempt < self.retries:
                        ac.add(submit(i, attempt + 1, t0))
                        continue
                    done = Done(tasks[i].key, error=f"failed: the worker running it died {attempt + 1} "
                                                    f"time{'s' if attempt else ''} ({e})")
                except Exception as e:
                    done = Done(tasks[i].key, error=f"failed on the cluster: {type(e).__name__}: {e}")
                done.attempts = attempt + 1
                done.queue_s = max(0.0, time.perf_counter() - t0 - done.build_s - done.run_s)
                yield done
        finally:
            for fut in list(submitted):
                fut.cancel()

    def cleanup(self, campaign: str) -> None:
        try:
            self.client.run(host_builds.remove_scratch, campaign)
        except Exception:
            pass
        host_builds.remove_scratch(campaign)

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()
