"""Who else may write a path: the tools take code, builds and settings only from places no other
user can change. A private directory is made with mode 0700 and verified before use (ours, not a
symlink, no one else may write it); a configuration file is taken only where neither it nor its
directory lets another user replace it."""
from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import UserError


def cache_home() -> Path:
    """This user's cache of the toolkit (native helpers, kernel libraries, builds):
    $XDG_CACHE_HOME, else ~/.cache, /cuda-correctness-toolkit (each use makes its part private)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cuda-correctness-toolkit"


def others_may_write(path: Path) -> str:
    """Why another user could change `path` (a file, or a directory's entries); "" when none could:
    it is ours or root's, and neither group- (of a group not ours) nor world-writable, except a
    sticky directory such as /tmp, where only an entry's owner may replace it."""
    try:
        st = os.lstat(path)
    except OSError as e:
        return f"it cannot be examined ({e.strerror})"
    if stat.S_ISLNK(st.st_mode):
        target = path.resolve()
        return others_may_write(target) or others_may_write(target.parent) if target != path else "a symlink loop"
    if st.st_uid not in (os.getuid(), 0):
        return f"it belongs to another user (uid {st.st_uid})"
    sticky = stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX
    if st.st_mode & stat.S_IWOTH and not sticky:
        return "anyone may write it"
    if st.st_mode & stat.S_IWGRP and st.st_gid not in os.getgroups() + [os.getgid()] and not sticky:
        return f"group {st.st_gid} may write it"
    return ""


def trusted_file(path: Path) -> str:
    """Why `path` (a file the tool would read settings from) is not to be trusted; "" when it is:
    neither the file nor its directory can be changed by another user (in a sticky directory such as
    /tmp, the file must be ours)."""
    why = others_may_write(path)
    if why:
        return f"{path}: {why}"
    parent = path.parent
    try:
        sticky = os.stat(parent).st_mode & stat.S_ISVTX
    except OSError:
        sticky = 0
    if sticky and os.lstat(path).st_uid != os.getuid():
        return f"{path}: it lies in {parent}, where anyone may put files, and is not yours"
    why = others_may_write(parent)
    return f"{parent}: {why}" if why else ""


def private_dir(path: Path) -> Path:
    """`path` as a directory only this user can use: made with mode 0700 where it does not exist
    (its parents as well), else checked and closed to others; a UserError names it and why when
    another user owns it, may write it, or it is a symlink (then it is never followed or changed)."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError as e:
        raise UserError(f"{path}: cannot make this private directory ({e.strerror})") from None
    st = os.lstat(path)
    why = ("it is a symlink" if stat.S_ISLNK(st.st_mode) else
           "it is not a directory" if not stat.S_ISDIR(st.st_mode) else
           f"it belongs to another user (uid {st.st_uid})" if st.st_uid != os.getuid() else
           f"others may write it (mode {stat.S_IMODE(st.st_mode):o})" if st.st_mode & 0o022 else "")
    if why:
        raise UserError(f"{path}: not used: {why}; another user could put code or results there",
                        hint="remove it, or point the tool elsewhere (TMPDIR, XDG_CACHE_HOME, CCTK_SCRATCH)")
    if st.st_mode & 0o077:   # ours, and only readable by others (made so by an earlier version): closed
        os.chmod(path, 0o700)
    return path
