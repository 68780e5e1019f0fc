"""Run independent jobs (each one a process of its own) a few at a time, keeping their order."""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Callable, Iterable, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def parallel_map(fn: Callable[[T], R], items: Iterable[T], jobs: int,
                 progress: Callable[[], None] | None = None) -> list[R]:
    """fn over items with `jobs` runs at once (each run is its own process), in order."""
    items = list(items)
    if jobs <= 1 or len(items) <= 1:
        out = []
        for it in items:
            out.append(fn(it))
            if progress:
                progress()
        return out
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(fn, it) for it in items]
        for f in as_completed(futures):
            f.result()
            if progress:
                progress()
        return [f.result() for f in futures]


def default_jobs() -> int:
    return max(1, (os.cpu_count() or 2))
