"""What one run of one test did: the record every runner fills and the judge reads."""
from __future__ import annotations

from dataclasses import dataclass, field

from .captured import Captured


@dataclass
class Observed:
    """What one run of one test did."""
    exit_code: int           # negative: killed by that signal
    stdout: Captured         # kept as its digest and an excerpt (captured.py), never whole in memory
    stderr: str              # an excerpt: its beginning and end
    wall_s: float
    timed_out: bool = False
    fault: str | None = None            # cpu backend: barrier divergence, deadlock, ...
    files: dict[str, Captured | None] = field(default_factory=dict)   # output files (None: not written)
    launches: int | None = None         # pytest suites: kernel launches the test made

    def signature(self) -> tuple:
        """What two runs must share to count as the same behaviour."""
        return (self.exit_code if not self.timed_out else "timeout", self.stdout,
                tuple(sorted(self.files.items(), key=lambda kv: kv[0])))
