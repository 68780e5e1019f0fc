"""Write instrumented files to a new directory, all or nothing, never over the user's sources."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from .errors import UserError
from .files import is_input, is_stream

# written into every output directory; only a directory holding it is ever replaced
MARKER = ".instrumented-output"


def common_root(paths) -> Path:
    return Path(os.path.commonpath([str(Path(p).resolve().parent) for p in paths]))


def write_tree(out_dir: str | Path, files: dict[str, bytes], root: str | Path,
               protected=()) -> dict[str, Path]:
    """Write `files` (original absolute path -> new bytes) under out_dir, mirroring
    their layout below `root`. The directory appears complete or not at all.
    Returns original path -> written path."""
    out = Path(out_dir).resolve()
    root = Path(root).resolve()
    if out.exists() and not (out / MARKER).is_file() and any(out.iterdir()):
        raise UserError(f"refusing to replace {out}: it exists and was not written by this tool",
                        hint="choose a new or empty output directory")
    protected = {Path(p).resolve() for p in protected} | {Path(p).resolve() for p in files}
    targets = {}
    for src in files:
        rel = Path(src).resolve().relative_to(root)
        dst = out / rel
        if dst in protected:
            raise UserError(f"refusing to write {dst}: it is one of your source files",
                            hint="choose an output directory with -o that is not the source directory")
        targets[src] = dst
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        os.chmod(tmp, 0o777 & ~_umask())
        (tmp / MARKER).write_text("written by the instrument/ engine; replaced on the next run\n")
        for src, data in files.items():
            d = tmp / targets[src].relative_to(out)
            d.parent.mkdir(parents=True, exist_ok=True)
            d.write_bytes(data)
        if out.exists():
            old = out.with_name(f".{out.name}.old.{os.getpid()}")
            out.rename(old)
            tmp.rename(out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return targets


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write a report file so that readers never see half of it."""
    atomic_write_bytes(path, text.encode())


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write a file whole or not at all, with the permissions a plain open() would give it; never
    over a file the run read (files.note_inputs); a character device, FIFO or pipe (/dev/null,
    /dev/stdout, `>(jq .)`) is written to as a stream, never replaced."""
    p = Path(path)
    if is_input(p):
        raise UserError(f"{p}: refusing to write there: this run read it (a source, a header it includes, "
                        f"a suite's file)", hint="choose another output path; your file is left as it is")
    if is_stream(p):
        with open(p, "wb") as fh:
            fh.write(data)
        return
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", dir=p.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_report_dir(out_dir: str | Path, files: dict[str, str | bytes]) -> Path:
    """Write a report directory (relative name -> content), all or nothing; it may
    replace only a directory this tool wrote before."""
    out = Path(out_dir).resolve()
    fake_root = out.parent / f".{out.name}.root"
    data = {str(fake_root / rel): (c.encode() if isinstance(c, str) else c) for rel, c in files.items()}
    write_tree(out, data, fake_root)
    return out
