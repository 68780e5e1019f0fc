"""What the execution layer runs: tasks (one build or run job each) and what comes back."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class HostBuild:
    """A build shared by every task on one host: the first task there that needs it makes it
    (the others on that host wait for it), every later one reuses it.

    `fn(work_dir, *args)` builds into `work_dir` and returns a picklable value (paths inside
    `work_dir`, site tables, ...). A build that raises is remembered as failed, with the reason,
    and is not retried on that host."""
    key: str                                  # unique within the campaign; used as a directory name
    fn: Callable[..., Any]
    args: tuple = ()


@dataclass
class BuildOutcome:
    value: Any = None
    error: str | None = None                  # why the build failed (None: it succeeded)


@dataclass(frozen=True)
class Task:
    """One job: `fn(build_outcome_or_None, *args)` on some worker; its return value is the
    result row (anything picklable). `fn` must be importable (a module-level function) so that
    a remote worker can run it."""
    key: str                                  # unique within the campaign: names the result
    fn: Callable[..., Any]
    args: tuple = ()
    build: HostBuild | None = None
    device: bool = False                      # runs take turns on the device (one at a time per GPU)
    device_slots: int = 1                     # ... or this many at once (runs share it: verdicts, not timings)


@dataclass
class Done:
    """A finished task: its value, or why it failed."""
    key: str
    value: Any = None
    error: str | None = None
    build_s: float = 0.0                      # building (or waiting for this host's build)
    run_s: float = 0.0
    queue_s: float = 0.0                      # everything else between submission and result
    built: bool = False                       # this task made its host's build
    attempts: int = 1
    where: str = ""                           # host (and worker) that ran it

    @property
    def ok(self) -> bool:
        return self.error is None
