"""A progress bar with ETA on stderr (tqdm), silent when output is not a terminal or when off."""
from __future__ import annotations

import sys
import threading


class Progress:
    def __init__(self, total: int, what: str, enabled: bool = True):
        self._bar = None
        self._lock = threading.Lock()
        if enabled and sys.stderr.isatty():
            from tqdm import tqdm
            self._bar = tqdm(total=total, desc=what, unit="run", file=sys.stderr, leave=False)

    def step(self, n: int = 1) -> None:
        if self._bar is not None:
            with self._lock:
                self._bar.update(n)

    def note(self, text: str) -> None:
        if self._bar is not None:
            with self._lock:
                self._bar.set_postfix_str(text, refresh=False)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
