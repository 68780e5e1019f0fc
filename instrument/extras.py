"""What a plain `pip install` leaves out: the modules of the optional extras (pyproject.toml's
`[project.optional-dependencies]`), asked for by the commands that need them before any work, so
that a missing one is one line naming the extra to install, never a traceback half-way through."""
from __future__ import annotations

import importlib

from .errors import UserError

DISTRIBUTION = "cuda-correctness-toolkit"


def require(what: str, extra: str, *modules: str) -> None:
    """Import `modules` (a command's needs: `what`, as the user named it); a UserError naming
    `extra` when one is not installed."""
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as e:
            missing = getattr(e, "name", None)
            why = ("is not installed" if missing is None or missing == name or missing.startswith(name + ".")
                   else f"cannot be imported ({e})")
            raise UserError(f"{what} needs {name}, which {why} (a plain install leaves it out): "
                            f"pip install '{DISTRIBUTION}[{extra}]'") from None
