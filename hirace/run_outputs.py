"""What a finished `hirace run` writes: the report (stderr, or --output written whole), the JUnit
file (--junit), GitHub Actions' annotations and step summary (GITHUB_ACTIONS=true, unless
--no-github or `github = false`), and with -v each launch's counts. Every report names files as
`paths` says (--root, or the `root` key: instrument/report_paths.py). A run that failed writes every
report file too, saying so, so that a CI step never reads a stale or missing file."""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

from instrument.output import atomic_write_text
from instrument.report_paths import ReportPaths

from . import report_github


@dataclass
class Outputs:
    format: str                  # text, json or sarif
    output: str | None           # --output (None: stderr)
    junit: str | None            # --junit
    github: bool                 # under GitHub Actions and not turned off
    print_limit: int = 0
    quiet: bool = False
    verbose: bool = False
    program: str = "program"     # what ran, as JUnit names it (the first source's stem, or the command's)
    paths: ReportPaths | None = None   # how the reports name files (None: report_text.paths_or_default)
    started: float = field(default_factory=time.monotonic)

    def say(self, line: str) -> None:
        """An informational line (-v)."""
        if self.verbose:
            print(f"hirace: {line}", file=sys.stderr, flush=True)

    def _report(self, res, status: int) -> str:
        # imported here so that `hirace --help` needs neither libclang nor the reporters
        from . import report_json, report_sarif, report_text
        if self.format == "sarif":
            return report_sarif.render(res, status, self._root())
        if self.format == "json":
            return report_json.render(res, self.paths)
        return report_text.render(res, self.print_limit, self.quiet, self.paths)

    def _root(self):
        return self.paths.root if self.paths is not None else None

    def finished(self, res, status: int, error: str | None = None) -> None:
        """Everything a run that produced a report writes; `error`: why it still failed (exit 2)."""
        from . import report_junit, report_text
        if self.verbose:
            sys.stderr.write(report_text.render_launches(res))
        text = self._report(res, status)
        if self.junit:
            from instrument import junit
            junit.write(self.junit, [report_junit.suite(res, self.program, self._elapsed(), error, self.paths)])
        if self.output:
            atomic_write_text(self.output, text)
            sup = f", {len(res.suppressed)} suppressed" if res.suppressed else ""
            races = len(res.races) + len(res.stream_races)
            print(f"hirace: {races} race(s), {len(res.memory_errors)} out-of-bounds site(s){sup}; report "
                  f"written to {self.output}", file=sys.stderr)
        else:
            sys.stderr.write(text)
        if self.github:
            for line in report_github.annotations(res, paths=self.paths):
                print(line, file=sys.stderr)
            report_github.append_summary(report_github.summary(res, status, error))

    def failed(self, message: str, status: int) -> None:
        """A run that ended in an error before its report (a build, the program, a timeout): each report
        file says so (the text report is the error line itself)."""
        from . import report_json, report_junit, report_sarif
        if self.output and self.format == "sarif":
            atomic_write_text(self.output, report_sarif.render_failure(message, status, self._root()))
        elif self.output and self.format == "json":
            atomic_write_text(self.output, report_json.render_failure(message, status, self.paths))
        if self.junit:
            from instrument import junit
            junit.write(self.junit, [report_junit.failure_suite(message, self.program, self._elapsed())])
        if self.github:
            print(report_github.error_annotation(message), file=sys.stderr)
            report_github.append_summary(report_github.summary(None, status, error=message))

    def _elapsed(self) -> float:
        return time.monotonic() - self.started
