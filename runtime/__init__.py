"""CUDA C++ runtime headers shipped with the tools (see runtime/include/)."""
from pathlib import Path

INCLUDE_DIR = Path(__file__).resolve().parent / "include"


def include_dir() -> Path:
    """The directory to pass as -I for the tools' runtime headers."""
    if not INCLUDE_DIR.is_dir():  # pragma: no cover - broken installation
        raise RuntimeError(f"runtime headers missing: {INCLUDE_DIR} (reinstall the package)")
    return INCLUDE_DIR
