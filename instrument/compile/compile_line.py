"""A compiler's command line as a compiler launcher receives it (`hirace-cc nvcc -c a.cu -o a.o ...`),
read into what the tools need: which inputs are CUDA units, host sources, objects and libraries;
the include paths, macros, language standard and forced includes the parser must see; the output
and dependency files; and the same line translated for the cpu backend's host compiler.

nvcc's and gcc/clang's options are read by one table. An option nvcc alone understands (the GPU
architecture, device code generation) is dropped for the host compiler; anything unknown is kept
as it was written (nvcc forwards it, or rejects it the same way with or without the launcher).
"""
from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

CUDA_SUFFIXES = {".cu"}
CXX_SUFFIXES = {".cpp", ".cc", ".cxx", ".c++", ".cp", ".C"}
C_SUFFIXES = {".c"}
OBJECT_SUFFIXES = {".o", ".obj", ".a", ".so", ".lo"}

# options whose value may come as the next argument: canonical name -> spellings
_VALUED = {
    "-o": ("-o", "--output-file"),
    "-I": ("-I", "--include-path"),
    "-D": ("-D", "--define-macro"),
    "-U": ("-U", "--undefine-macro"),
    "-L": ("-L", "--library-path"),
    "-l": ("-l", "--library"),
    "-include": ("-include", "--pre-include"),
    "-isystem": ("-isystem", "--system-include"),
    "-iquote": ("-iquote",),
    "-idirafter": ("-idirafter",),
    "-imacros": ("-imacros",),
    "-x": ("-x", "--x", "--language"),
    "-MF": ("-MF", "--dependency-output"),
    "-MT": ("-MT", "--dependency-target-name"),
    "-MQ": ("-MQ",),
    "-Xcompiler": ("-Xcompiler", "--compiler-options"),
    "-Xlinker": ("-Xlinker", "--linker-options"),
    "-std": ("-std", "--std"),
    "-ccbin": ("-ccbin", "--compiler-bindir"),
    # nvcc's own, dropped for the host compiler
    "-arch": ("-arch", "--gpu-architecture"),
    "-code": ("-code", "--gpu-code"),
    "-gencode": ("-gencode", "--generate-code"),
    "-Xptxas": ("-Xptxas", "--ptxas-options"),
    "-Xnvlink": ("-Xnvlink", "--nvlink-options"),
    "-Xarchive": ("-Xarchive", "--archive-options"),
    "-Xfatbin": ("-Xfatbin", "--fatbin-options"),
    "-Xcudafe": ("-Xcudafe",),
    "-maxrregcount": ("-maxrregcount", "--maxrregcount"),
    "-t": ("-t", "--threads"),
    "-default-stream": ("-default-stream", "--default-stream"),
    "-cudart": ("-cudart", "--cudart"),
    "-cudadevrt": ("-cudadevrt", "--cudadevrt"),
    "-rdc": ("-rdc", "--relocatable-device-code"),
    "-diag-suppress": ("-diag-suppress", "--diag-suppress"),
    "-diag-error": ("-diag-error", "--diag-error"),
    "-diag-warn": ("-diag-warn", "--diag-warn"),
    "-odir": ("-odir", "--output-directory"),
    "-keep-dir": ("-keep-dir", "--keep-dir"),
    "-split-compile": ("-split-compile", "--split-compile"),
    "-ftz": ("-ftz", "--ftz"),
    "-prec-div": ("-prec-div", "--prec-div"),
    "-prec-sqrt": ("-prec-sqrt", "--prec-sqrt"),
    "-fmad": ("-fmad", "--fmad"),
    "-Werror-nvcc": ("--Werror",),
    "-time": ("-time", "--time"),
    "-run-args": ("-run-args", "--run-args"),
}
# gcc's single-letter options that take their value attached or next
_ATTACHED = ("-I", "-D", "-U", "-L", "-l", "-o", "-x")
_GCC_VALUED = {"-o", "-I", "-D", "-U", "-L", "-l", "-include", "-isystem", "-x", "-MF", "-MT"}
_SPELLING = {s: canon for canon, spellings in _VALUED.items() for s in spellings}
_NVCC_ONLY = {"-arch", "-code", "-gencode", "-Xptxas", "-Xnvlink", "-Xarchive", "-Xfatbin", "-Xcudafe",
              "-maxrregcount", "-t", "-default-stream", "-cudart", "-cudadevrt", "-rdc", "-diag-suppress",
              "-diag-error", "-diag-warn", "-odir", "-keep-dir", "-split-compile", "-ftz", "-prec-div",
              "-prec-sqrt", "-fmad", "-Werror-nvcc", "-time", "-run-args", "-ccbin"}
# nvcc's flags without a value that mean nothing to a host compiler
_NVCC_FLAGS = {"-lineinfo", "--generate-line-info", "-G", "--device-debug", "--extended-lambda", "-extended-lambda",
               "--expt-extended-lambda", "-expt-extended-lambda", "--expt-relaxed-constexpr", "-expt-relaxed-constexpr",
               "-forward-unknown-to-host-compiler", "--forward-unknown-to-host-compiler",
               "-forward-unknown-to-host-linker", "--forward-unknown-to-host-linker", "-Wno-deprecated-gpu-targets",
               "--Wno-deprecated-gpu-targets", "-use_fast_math", "--use_fast_math", "-restrict", "--restrict",
               "-res-usage", "--resource-usage", "-allow-unsupported-compiler", "--allow-unsupported-compiler",
               "-keep", "--keep", "-src-in-ptx", "--source-in-ptx", "-Wreorder", "-Wext-lambda-captures-this",
               "-Wno-deprecated-declarations-nvcc", "-static-global-template-stub", "-no-compress", "--no-compress",
               "-dopt", "-w-nvcc", "--display-error-number", "-err-no", "--no-host-device-initializer-list",
               "-nohdinitlist", "--no-host-device-move-forward", "-nohdmoveforward", "-dlto", "--dlto"}
# what makes a command compile only (no link), and what makes it something else than a build
_COMPILE = {"-c", "--compile", "-dc", "--device-c", "-dw", "--device-w"}
_DEVICE_LINK = {"-dlink", "--device-link"}
_LIBRARY = {"-lib", "--lib"}
_NOT_A_BUILD = {"-E", "--preprocess", "-M", "--generate-dependencies", "-MM", "--generate-nonsystem-dependencies",
                "-ptx", "--ptx", "-cubin", "--cubin", "-fatbin", "--fatbin", "-optix-ir", "--optix-ir",
                "--version", "-V", "-dryrun", "--dryrun", "-S", "-fsyntax-only", "--help", "-h",
                "-dumpversion", "-dumpmachine", "-print-file-name", "-print-prog-name", "-print-search-dirs",
                "-list-gpu-arch", "--list-gpu-arch", "-list-gpu-code", "--list-gpu-code", "-run", "--run"}
_DEPS = {"-MD", "-MMD", "--generate-dependencies-with-compile", "--generate-nonsystem-dependencies-with-compile",
         "-MP"}
_WERROR_KINDS = {"all-warnings", "cross-execution-space-call", "reorder", "default-stream-launch",
                 "missing-launch-bounds", "ext-lambda-captures-this", "deprecated-declarations"}
_WHOLE_NVCC_FLAGS = _NVCC_FLAGS | _COMPILE | _DEVICE_LINK | _LIBRARY | _NOT_A_BUILD | _DEPS
_CUDA_LIBS = re.compile(r"^(cudart|cudart_static|cudadevrt|cuda)$")
_CUDA_LIB_FILES = re.compile(r"(^|/)lib(cudart|cudart_static|cudadevrt)\.(a|so)(\.[\d.]+)?$")


@dataclass
class Item:
    """One option (or input) of the line: its canonical name ('' for an input), its value, and the
    arguments it was written as."""
    name: str
    value: str
    written: list[str]


@dataclass
class Input:
    path: str
    language: str   # cuda | c++ | c | object (objects and libraries) | other
    index: int      # its item's index


@dataclass
class CompileLine:
    compiler: str
    items: list[Item]
    nvcc: bool

    # ------------------------------------------------------------------ what the line does
    def names(self) -> set[str]:
        return {i.name for i in self.items}

    @property
    def compile_only(self) -> bool:
        return bool(self.names() & _COMPILE)

    @property
    def device_link(self) -> bool:
        return bool(self.names() & _DEVICE_LINK)

    @property
    def makes_library(self) -> bool:
        return bool(self.names() & _LIBRARY)

    @property
    def not_a_build(self) -> bool:
        """Preprocessing, dependency listing, version and other probes: no object or program comes out."""
        return bool(self.names() & _NOT_A_BUILD)

    @property
    def output(self) -> str | None:
        outs = [i.value for i in self.items if i.name == "-o"]
        return outs[-1] if outs else None

    def inputs(self) -> list[Input]:
        out = []
        lang = None   # -x applies to the inputs after it
        for n, it in enumerate(self.items):
            if it.name == "-x":
                lang = {"cu": "cuda", "cuda": "cuda", "c++": "c++", "c": "c", "none": None}.get(it.value, "other")
                continue
            if it.name:
                continue
            p = it.value
            suffix = Path(p).suffix
            if suffix in OBJECT_SUFFIXES or re.search(r"\.so(\.\d+)*$", p):
                kind = "object"
            elif lang:
                kind = lang
            elif suffix in CUDA_SUFFIXES:
                kind = "cuda"
            elif suffix in CXX_SUFFIXES:
                kind = "c++"
            elif suffix in C_SUFFIXES:
                kind = "c"
            else:
                kind = "other"
            out.append(Input(p, kind, n))
        return out

    # ------------------------------------------------------------------ what the parser needs
    def include_dirs(self) -> list[str]:
        return [i.value for i in self.items if i.name == "-I"]

    def defines(self) -> list[str]:
        return [i.value for i in self.items if i.name == "-D"]

    def parse_extra(self, skip_dirs=()) -> list[str]:
        """The parser's further arguments: system include dirs, undefinitions, forced includes,
        the language standard."""
        out: list[str] = []
        for i in self.items:
            if i.name in ("-isystem", "-idirafter") and i.value not in skip_dirs:
                out += [i.name, i.value]
            elif i.name == "-iquote":
                out += ["-iquote", i.value]
            elif i.name == "-U":
                out.append(f"-U{i.value}")
            elif i.name in ("-include", "-imacros"):
                out += [i.name, i.value]
            elif i.name == "-std":
                out.append(f"-std={i.value}")
        return out

    # ------------------------------------------------------------------ writing lines back
    def argv(self, replace: dict[int, list[str]] | None = None, drop=lambda it: False) -> list[str]:
        """The line's arguments (without the compiler), items replaced by index or dropped."""
        out: list[str] = []
        for n, it in enumerate(self.items):
            if replace and n in replace:
                out += replace[n]
            elif not drop(it):
                out += it.written
        return out

    def host_argv(self, replace: dict[int, list[str]] | None = None, toolkit_dirs=()) -> list[str]:
        """The line as the cpu backend's host compiler takes it: nvcc's own options dropped, its
        -Xcompiler values unpacked, the CUDA toolkit's include directories and runtime libraries
        left out (the emulation replaces them)."""
        out: list[str] = []
        for n, it in enumerate(self.items):
            if replace and n in replace:
                out += replace[n]
                continue
            if it.name in _NVCC_ONLY or it.name in _NVCC_FLAGS or it.name in _DEVICE_LINK or it.name in _LIBRARY:
                continue
            if it.name in ("-I", "-isystem", "-idirafter") and _is_toolkit_include(it.value, toolkit_dirs):
                continue
            if it.name == "-l" and _CUDA_LIBS.match(it.value):
                continue
            if not it.name and _CUDA_LIB_FILES.search(it.value):
                continue
            if it.name == "-Xcompiler":
                out += [v for v in _split_commas(it.value) if v]
            elif it.name == "-Xlinker":
                out += [f"-Wl,{it.value}"]
            elif it.name in ("-dc", "--device-c", "--compile", "-dw", "--device-w"):
                out.append("-c")
            elif it.name in ("--generate-dependencies-with-compile",):
                out.append("-MD")
            elif it.name in ("--generate-nonsystem-dependencies-with-compile",):
                out.append("-MMD")
            elif it.name == "-std":
                out.append(f"-std={it.value}")
            elif it.name == "-x" and it.value in ("cu", "cuda"):
                continue   # (a CUDA unit is given to the host compiler as -x c++ where it is replaced)
            elif it.name in _GCC_VALUED and it.written[0].startswith("--"):
                out += [it.name, it.value]   # nvcc's long spelling: gcc's short one
            else:
                out += it.written
        return out


def _split_commas(text: str) -> list[str]:
    """nvcc's comma-separated option lists (-Xcompiler -fPIC,-Wall); a comma inside quotes stays."""
    return [p.strip() for p in re.split(r",(?=(?:[^\"']*[\"'][^\"']*[\"'])*[^\"']*$)", text)]


def _is_toolkit_include(d: str, toolkit_dirs) -> bool:
    """The CUDA toolkit's own include directory (or its cccl directory)."""
    from .toolchain import nvcc_include_dirs
    p = Path(d)
    known = {os.path.normpath(t) for t in [*toolkit_dirs, *nvcc_include_dirs()[0], *nvcc_include_dirs()[1]]}
    if os.path.normpath(str(p)) in known or (p.exists() and str(p.resolve()) in {
            str(Path(k).resolve()) for k in known if Path(k).exists()}):
        return True
    return (p / "cuda_runtime_api.h").is_file() and not (p / "cudaemu.h").is_file() and \
        "cudaemu" not in p.parts and "cudaparse" not in p.parts


def is_nvcc(compiler: str) -> bool:
    return "nvcc" in Path(compiler).name


def _expand_files(args: list[str], depth: int = 0) -> list[str]:
    """Arguments kept in files (CMake's `--options-file includes_CUDA.rsp` for nvcc, `@file` for gcc)
    read in place; a file that cannot be read stays as written (the compiler says why)."""
    out: list[str] = []
    i = 0
    while i < len(args):
        a, path = args[i], None
        if a in ("--options-file", "-optf") and i + 1 < len(args):
            path, i = args[i + 1], i + 2
        elif a.startswith(("--options-file=", "-optf=")):
            path, i = a.split("=", 1)[1], i + 1
        elif a.startswith("@") and len(a) > 1:
            path, i = a[1:], i + 1
        else:
            out.append(a)
            i += 1
            continue
        try:
            text = Path(path).read_text()
        except (OSError, UnicodeDecodeError):
            out += args[i - (2 if not a.startswith(("@", "--options-file=", "-optf=")) else 1):i]
            continue
        words = shlex.split(text)
        out += _expand_files(words, depth + 1) if depth < 8 else words
    return out


def parse(argv: list[str]) -> CompileLine:
    """Read `compiler args...`."""
    if not argv:
        raise ValueError("no compiler was given")
    compiler, args = argv[0], _expand_files(argv[1:])
    nvcc = is_nvcc(compiler)
    items: list[Item] = []
    i = 0
    while i < len(args):
        a = args[i]
        if nvcc and a == "-Werror" and i + 1 < len(args) and args[i + 1] in _WERROR_KINDS:
            items.append(Item("-Werror-nvcc", args[i + 1], [a, args[i + 1]]))
            i += 2
            continue
        if a in _SPELLING and (nvcc or _SPELLING[a] not in _NVCC_ONLY):   # an option and its value next
            canon = _SPELLING[a]
            if i + 1 < len(args):
                items.append(Item(canon, args[i + 1], [a, args[i + 1]]))
                i += 2
            else:
                items.append(Item(a, "", [a]))
                i += 1
            continue
        if a.startswith("-") and "=" in a and a.split("=", 1)[0] in _SPELLING and \
                (nvcc or _SPELLING[a.split("=", 1)[0]] not in _NVCC_ONLY):   # --opt=value, -std=c++17
            name, value = a.split("=", 1)
            items.append(Item(_SPELLING[name], value, [a]))
        elif nvcc and a in _WHOLE_NVCC_FLAGS:
            items.append(Item(a, a, [a]))   # (-lib and -lineinfo are not -l with a value)
        elif a.startswith(("-MF", "-MT", "-MQ")) and len(a) > 3:
            items.append(Item(a[:3], a[3:], [a]))   # -MFdeps/m.d (gcc takes it attached too)
        elif a.startswith("-isystem") and len(a) > len("-isystem"):
            items.append(Item("-isystem", a[len("-isystem"):], [a]))
        elif a.startswith("-") and not a.startswith("--") and len(a) > 2 and a[:2] in _ATTACHED:
            items.append(Item(a[:2], a[2:], [a]))   # -Idir, -DX=1, -lm, -ofile
        elif a.startswith("-"):
            name = a
            if a.startswith("-O"):
                name = "-O"
            elif a.startswith("-gencode=") or a.startswith("-arch="):
                name = a.split("=", 1)[0]
            items.append(Item(name, a, [a]))
        else:
            items.append(Item("", a, [a]))
        i += 1
    return CompileLine(compiler, items, nvcc)
