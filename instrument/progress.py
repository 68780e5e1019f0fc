"""Progress of a long command on stderr: a bar with ETA (tqdm) on a terminal; elsewhere (CI logs)
one line every `interval` seconds and one at the end, so a long run is never silent. Off with
--no-progress or -q. The unit names what is counted (mutants, tests, schedules, runs)."""
from __future__ import annotations

import sys
import threading
import time

LINE_INTERVAL_S = 10.0


def _clock(s: float) -> str:
    s = int(s)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class Progress:
    def __init__(self, total: int, what: str, enabled: bool = True, unit: str | None = None,
                 interval: float = LINE_INTERVAL_S, stream=None):
        self._bar = None
        self._lock = threading.Lock()
        self._stream = stream or sys.stderr
        self.total, self.what, self.unit = total, what, unit or what
        self.done, self.postfix = 0, ""
        self._lines = enabled and not self._stream.isatty()
        self._printed = False   # a run too short for a periodic line stays silent at its end too
        self._interval = interval
        self._t0 = self._last = time.monotonic()
        if enabled and not self._lines:
            from tqdm import tqdm
            self._bar = tqdm(total=total, desc=what, unit=self.unit.rstrip("s") or self.unit, file=self._stream,
                             leave=False)

    def _line(self, now: float) -> None:
        elapsed = now - self._t0
        pct = 100 * self.done / self.total if self.total else 100.0
        left = ""
        if 0 < self.done < self.total:
            left = f", about {_clock(elapsed / self.done * (self.total - self.done))} left"
        extra = f" ({self.postfix})" if self.postfix else ""
        self._stream.write(f"{self.what}: {self.done}/{self.total} {self.unit} ({pct:.0f}%), "
                           f"{_clock(elapsed)} elapsed{left}{extra}\n")
        self._stream.flush()
        self._last = now
        self._printed = True

    def step(self, n: int = 1) -> None:
        with self._lock:
            self.done += n
            if self._bar is not None:
                self._bar.update(n)
            elif self._lines:
                now = time.monotonic()
                if now - self._last >= self._interval:
                    self._line(now)

    def note(self, text: str) -> None:
        with self._lock:
            self.postfix = text
            if self._bar is not None:
                self._bar.set_postfix_str(text, refresh=False)

    def close(self) -> None:
        with self._lock:
            if self._bar is not None:
                self._bar.close()
                self._bar = None
            elif self._lines:
                if self._printed:
                    self._line(time.monotonic())
                self._lines = False


class Warnings(list):
    """A long command's warnings: kept (in order, once each) for its report, and shown on stderr
    as soon as they are known when `show` is set, so a CI log has them before the run ends."""

    def __init__(self, tool: str, show: bool = False, stream=None):
        super().__init__()
        self.tool, self.show, self._stream = tool, show, stream or sys.stderr

    def add(self, *messages: str) -> None:
        for m in messages:
            if m and m not in self:
                self.append(m)
                if self.show:
                    self._stream.write(f"{self.tool}: warning: {m}\n")
                    self._stream.flush()
