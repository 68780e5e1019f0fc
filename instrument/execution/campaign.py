"""A campaign: tasks through an executor, with a progress bar and an account of where time went."""
from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass, field
from typing import Iterator

from ..progress import Progress
from .task import Done, Task


@dataclass
class Stats:
    executor: str = ""
    workers: int = 1
    tasks: int = 0
    failed: int = 0
    retried: int = 0          # tasks resubmitted after their worker died
    builds: int = 0           # host builds made (per host, shared by its tasks)
    build_s: float = 0.0      # summed over tasks: building or waiting for the host's build
    run_s: float = 0.0        # summed over tasks: the job itself
    queue_s: float = 0.0      # summed over tasks: waiting for a worker, transfers, lost attempts
    per_worker: dict = field(default_factory=dict)   # host and worker -> tasks it finished

    def add(self, d: Done) -> None:
        self.tasks += 1
        self.failed += not d.ok
        self.retried += d.attempts > 1
        self.builds += d.built
        self.build_s += d.build_s
        self.run_s += d.run_s
        self.queue_s += d.queue_s
        if d.where:
            self.per_worker[d.where] = self.per_worker.get(d.where, 0) + 1

    def summary(self, wall_s: float, unit: str = "tasks") -> str:
        """Where the time went: work summed over tasks, the mean wait for a worker, idle workers."""
        n = max(1, self.tasks)
        rate = f" ({60.0 * self.tasks / wall_s:.1f} {unit}/min)" if wall_s > 0 and self.tasks else ""
        idle = max(0.0, self.workers * wall_s - self.build_s - self.run_s)
        text = (f"{self.tasks} {unit} on {self.executor} in {wall_s:.1f} s{rate}; summed over {unit}: "
                f"build {self.build_s:.1f} s ({self.builds} build{'s' if self.builds != 1 else ''}, "
                f"waits for a host's build included), run {self.run_s:.1f} s; queue {self.queue_s / n:.2f} s "
                f"per task on average; workers idle {100.0 * idle / max(1e-9, self.workers * wall_s):.0f}%")
        if self.retried or self.failed:
            text += f"; {self.retried} retried after a worker died, {self.failed} failed"
        return text

    def as_dict(self) -> dict:
        d = asdict(self)
        for k in ("build_s", "run_s", "queue_s"):
            d[k] = round(d[k], 2)
        return d


class Campaign:
    """Tasks of one campaign share its host builds; `with` removes them from every host at the end."""

    def __init__(self, executor, what: str):
        self.executor = executor
        self.id = f"{what}-{uuid.uuid4().hex[:10]}"
        self.stats = Stats(executor.description, executor.workers)

    def run(self, tasks: list[Task], bar: Progress | None = None) -> Iterator[Done]:
        """Each task's Done as it finishes (any order)."""
        for d in self.executor.run(tasks, self.id):
            self.stats.add(d)
            if bar is not None:
                bar.step()
                if self.stats.retried or self.stats.failed:
                    bar.note(f"{self.stats.retried} retried, {self.stats.failed} failed")
            yield d

    def shown(self, tasks: list[Task], what: str, enabled: bool, unit: str) -> Iterator[Done]:
        """run(tasks) with a progress bar of its own (`what`, counting `unit`), closed at the end."""
        bar = Progress(len(tasks), what, enabled=enabled, unit=unit)
        try:
            yield from self.run(tasks, bar)
        finally:
            bar.close()

    def __enter__(self) -> "Campaign":
        return self

    def __exit__(self, *exc) -> None:
        self.executor.cleanup(self.id)
