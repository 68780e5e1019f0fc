"""Find the compilers and devices on this machine (results cached per process)."""
from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
from pathlib import Path

from ..reaper import scratch_env


@functools.lru_cache(maxsize=None)
def nvcc_path() -> Path | None:
    """nvcc from PATH, else from $CUDA_HOME/bin or /usr/local/cuda/bin."""
    found = shutil.which("nvcc")
    if found:
        return Path(found)
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and (Path(root) / "bin" / "nvcc").is_file():
            return Path(root) / "bin" / "nvcc"
    return None


@functools.lru_cache(maxsize=None)
def host_cxx() -> str | None:
    """The host C++ compiler: $CXX, else g++, else clang++."""
    for cand in (os.environ.get("CXX"), "g++", "clang++"):
        if cand and shutil.which(cand):
            return cand
    return None


@functools.lru_cache(maxsize=None)
def c_compiler() -> str:
    """The host C compiler (for .c sources): $CC, else gcc, else cc."""
    for cand in (os.environ.get("CC"), "gcc", "clang", "cc"):
        if cand and shutil.which(cand):
            return cand
    return "cc"


@functools.lru_cache(maxsize=None)
def gcc_include_dir() -> Path | None:
    """gcc's own include directory (stddef.h, stdarg.h) for libclang, which ships none."""
    for cc in ("gcc", "cc"):
        if shutil.which(cc):
            out = subprocess.run([cc, "-print-file-name=include"], capture_output=True, text=True,
                                 env=scratch_env())   # (a compiler's temporaries: in our scratch)
            p = Path(out.stdout.strip())
            if out.returncode == 0 and (p / "stddef.h").is_file():
                return p
    return None


@functools.lru_cache(maxsize=None)
def gpu_usable() -> bool:
    """True when nvcc exists and a CUDA device answers (nvidia-smi lists one)."""
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) in ("", "-1"):
        return False
    if nvcc_path() is None or shutil.which("nvidia-smi") is None:
        return False
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


@functools.lru_cache(maxsize=None)
def gpu_arch() -> str | None:
    """The first visible device's architecture as nvcc names it ('sm_90'), or None."""
    if not gpu_usable():
        return None
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    first = out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else ""
    major, _, minor = first.strip().partition(".")
    return f"sm_{major}{minor}" if major.isdigit() and minor.isdigit() else None


@functools.lru_cache(maxsize=None)
def nvcc_include_dirs() -> tuple[list[str], list[str]]:
    """Where nvcc looks for headers by itself: (its -I directories, its -isystem ones: CUDA 13 keeps
    CUB, Thrust and libcu++ under include/cccl there), as its dry run says; ([], []) without nvcc."""
    nvcc = nvcc_path()
    if nvcc is None:
        return [], []
    try:
        out = subprocess.run([str(nvcc), "--dryrun", "-x", "cu", "-c", os.devnull, "-o", os.devnull],
                             capture_output=True, text=True, timeout=60, env=scratch_env())
    except (OSError, subprocess.TimeoutExpired):
        return [], []
    found: dict[str, list[str]] = {"INCLUDES": [], "SYSTEM_INCLUDES": []}
    for line in (out.stdout + out.stderr).splitlines():
        for key in found:
            prefix = f"#$ {key}="
            if line.startswith(prefix):
                words = shlex.split(line[len(prefix):])
                for n, w in enumerate(words):
                    if w.startswith("-I") and len(w) > 2:
                        found[key].append(os.path.normpath(w[2:]))
                    elif w == "-isystem" and n + 1 < len(words):
                        found[key].append(os.path.normpath(words[n + 1]))
    return found["INCLUDES"], found["SYSTEM_INCLUDES"]


@functools.lru_cache(maxsize=1)
def library_include_dirs() -> tuple[tuple[str, str], ...]:
    """Where the parser finds the toolkit's libraries (CUB, Thrust, libcu++), as (option, dir): the
    directories nvcc adds with -isystem (include/cccl since CUDA 13); a toolkit that keeps them in
    include/ itself (CUDA 12) gives that directory with -idirafter, searched after our declarations
    so that its cuda_runtime.h never replaces them."""
    includes, system = nvcc_include_dirs()
    found = [("-isystem", d) for d in system if os.path.isdir(d)]
    if not any(os.path.isdir(os.path.join(d, "cub")) for _, d in found):
        found += [("-idirafter", d) for d in includes if os.path.isdir(os.path.join(d, "cub"))]
    return tuple(found)   # (asked for every name the parse resolves: parse.library_of)


def library_options() -> list[str]:
    """library_include_dirs as compiler options."""
    return [w for option, d in library_include_dirs() for w in (option, d)]
