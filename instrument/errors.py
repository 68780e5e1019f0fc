"""User-facing errors: one place, one exit code convention.

Every command exits 0 on success, 1 when it found what it looks for (races,
schedule-dependent tests) and 2 when the tool, the build or the input failed.
A UserError carries a one-line message that names the file and line when
there is one; the command-line layers print it and exit with its code.
"""
from __future__ import annotations

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


class UserError(Exception):
    """An error the user can act on; printed without a traceback."""

    exit_code = EXIT_ERROR

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n  hint: {self.hint}"


class ParseError(UserError):
    """A source file that libclang could not parse."""


class UnsupportedConstruct(UserError):
    """A construct the instrumenter refuses, with the site it found it at."""


class RewriteConflict(UserError):
    """Two planned edits overlap; applying both would corrupt the source."""


class BuildError(UserError):
    """The compiler rejected the (instrumented) program."""


class ToolchainMissing(UserError):
    """A compiler or device that the chosen backend needs is not present."""
