"""hirace.toml: what to check. Every key is declared here once, with its default.

Without --config, the configuration is found as ruff and coverage.py find theirs: from the current
directory upward, the first directory holding a `hirace.toml`, or a `pyproject.toml` with a
`[tool.hirace]` table, gives it (hirace.toml first within one directory)."""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path

from instrument.errors import UserError
from instrument.config_files import find_upward, read_toml
from instrument.protocol import Env, option_default

from .results import buffer_name
from .suppress import check_entries


# seconds before `hirace run` kills the program or command (--timeout; runner.py's default too)
TIMEOUT = 300.0


@dataclass
class Config:
    kernels: list[str] = field(default_factory=list)   # kernels to check; empty: all
    kernels_exclude: list[str] = field(default_factory=list)   # kernels never checked (wins over `kernels`)
    ignore: list[str] = field(default_factory=list)    # variables never checked
    monitor: list[str] = field(default_factory=list)   # if given, only these variables are checked
    blocks: list[int] = field(default_factory=list)    # [first, last] linear block ids checked
    threads: list[int] = field(default_factory=list)   # [first, last] linear thread ids (in a block) checked
    # distinct race records kept per launch (the runtime's own default: instrument/protocol.py)
    max_reports: int = option_default(Env.HIRACE_MAX_REPORTS)
    # also keep each word's last accesses' sites and threads (16 bytes a word; the runtime's default)
    prior_sites: bool = option_default(Env.HIRACE_PRIOR_SITES)
    # ... kept while hirace's device memory stays within this many times the program's (0: always)
    sites_budget: int = option_default(Env.HIRACE_SITES_BUDGET)
    granularity: int = 0             # bytes per shadow word; 0: the narrowest access in the program
    quiet_reads: bool = True         # accesses that cannot race get a bounds check only (docs/hirace.md)
    sites_ran: bool = False          # the gpu backend records which sites ran too (the cpu backend always does)
    gpu_streams: bool = False        # the gpu backend follows the host's order of operations too (the cpu backend always does)
    suppress: list[str] = field(default_factory=list)   # known benign races: kernel:K, variable:V, FILE:LINE
    print_limit: int = 0             # findings printed in the text report; 0: all (JSON, SARIF, JUnit keep all)
    github: bool = True              # under GitHub Actions: annotations and a step summary (report_github.py)
    # reports name files relative to it (a path relative to the file; None: the git work tree holding what
    # is checked, else the current directory: instrument/report_paths.py, as cltc's `root`)
    root: str | None = None
    source = None                    # the file it was read from (a plain attribute, not a key)
    # measuring only: quiet versions also for kernels with sites in open loops (a plain attribute, not a
    # key: bench/hirace_overhead/variants.py's `open_loops=1`; HIRACE_BENCH_OPEN_LOOP_VERSIONS=1 elsewhere)
    bench_open_loop_versions = False

    def __post_init__(self):
        self.given: dict[str, str] = {}   # keys the command line set: key -> its option (not a key)


# What each key means (its default is Config's: `describe` adds it, as the docs' table shows it).
HELP = {
    "kernels": "list of kernel names to check ([]: all)",
    "kernels_exclude": "list of kernel names never to check, even when `kernels` names them",
    "ignore": "list of variable names whose accesses are not checked",
    "monitor": "list of variable names: only accesses to these are checked ([]: all)",
    "blocks": "[first, last]: only threads of these linear block ids are checked ([]: all)",
    "threads": "[first, last]: only these linear thread ids within each block are checked ([]: all)",
    "max_reports": "distinct races kept per launch; more are counted as dropped",
    "prior_sites": "record each word's last accesses (site and thread), so reports name both accesses "
                   "(false saves 16 bytes per shadow word)",
    "sites_budget": "keep a buffer's prior sites (16 bytes per shadow word) only while hirace's device memory "
                    "(shadows, prior sites, logs, redzones) stays within this many times the program's, or the prior "
                    "sites within 1 MiB; a buffer a race was found in gets them anyway, so the next launch that races "
                    "there names both accesses (0: no limit)",
    "quiet_reads": "accesses that cannot race (shared reads in write-free __syncthreads intervals, each "
                   "thread's own shared word, reads through read-only kernel parameters) get a bounds check "
                   "only (false checks every access whole)",
    "granularity": "bytes covered by one shadow word, for every buffer: 1, 2, 4 or 8 (0: per buffer, the narrowest access that reaches it)",
    "sites_ran": "record which instrumented sites ran, so that a report names those that never ran on the "
                 "input (always on the cpu backend; on the gpu backend it costs a flag per access)",
    "gpu_streams": "on the gpu backend too, check races between operations the host does not order (kernels on "
                   "streams, copies, sets: docs/hirace.md); it waits for every launch of such a program and reads its "
                   "footprint back (cuda-samples' matrixMul: its kernels 188x the plain time instead of 11x on an H200); "
                   "the cpu backend always checks them",
    "suppress": "known benign races, reported as suppressed: kernel:NAME, variable:NAME or FILE:LINE",
    "print_limit": "findings printed in the text report, the rest counted (0: all; JSON, SARIF and JUnit keep all)",
    "github": "under GitHub Actions (GITHUB_ACTIONS=true): an ::error annotation for each finding and a summary "
              "appended to $GITHUB_STEP_SUMMARY (false: neither)",
    "root": "reports name files relative to this directory (relative to the file), absolute outside it "
            "(default: the git work tree holding the sources, with a command the current directory's; else "
            "the current directory)",
}


def default_text(key: str) -> str:
    """A key's default as hirace.toml spells it (`true`, `1024`, `[]`; None: the key has no default value,
    its help says what its absence means)."""
    v = getattr(Config(), key)
    return ("true" if v else "false") if isinstance(v, bool) else "none" if v is None else str(v)


def describe(key: str) -> str:
    """What a key means, with its default."""
    return HELP[key] if getattr(Config(), key) is None else f"{HELP[key]} (default {default_text(key)})"


# keys whose value is a path (relative to the file), and whose default is None
PATH_KEYS = ("root",)


def discover(start: Path) -> Path | None:
    """The configuration file that applies in `start`: hirace.toml, or a pyproject.toml with a
    [tool.hirace] table, in start or the nearest directory above it; None when there is none."""
    return find_upward(start, "hirace.toml", "hirace")


def load(path: str | Path | None) -> Config:
    cfg = Config()
    if path is None:
        return cfg
    p = Path(path)
    data = read_toml(p, "config file")
    base = p.resolve().parent   # (paths in the file are relative to it)
    if p.name == "pyproject.toml":   # the [tool.hirace] table (none: the defaults)
        data = data.get("tool", {}).get("hirace", {})
        if not isinstance(data, dict):
            raise UserError(f"{p}: [tool.hirace] must be a table")
        p = Path(f"{p} [tool.hirace]")
    cfg.source = str(p)
    known = {f.name: f for f in fields(Config)}
    for key, value in data.items():
        if key not in known:
            raise UserError(f"{p}: unknown key '{key}'",
                            hint="known keys: " + "; ".join(f"{k} ({describe(k)})" for k in HELP))
        if key in PATH_KEYS:
            if not isinstance(value, str) or not value:
                raise UserError(f"{p}: '{key}' must be a path (a string): {describe(key)}")
            setattr(cfg, key, str(base / value))
            continue
        default = getattr(cfg, key)
        elem = int if key in ("blocks", "threads") else str
        ok = (isinstance(value, list) and all(isinstance(v, elem) and not isinstance(v, bool) for v in value)) \
            if isinstance(default, list) \
            else isinstance(value, type(default)) and not (isinstance(default, int) and isinstance(value, bool)
                                                           and not isinstance(default, bool))
        if not ok:
            kind = f"list of {elem.__name__}s" if isinstance(default, list) else type(default).__name__
            raise UserError(f"{p}: '{key}' must be a {kind}: {describe(key)}")
        setattr(cfg, key, value)
    if cfg.granularity not in (0, 1, 2, 4, 8):
        raise UserError(f"{p}: 'granularity' must be 1, 2, 4 or 8")
    for key in ("blocks", "threads"):
        rng = getattr(cfg, key)
        if rng and (len(rng) != 2 or rng[0] < 0 or rng[1] < rng[0]):
            raise UserError(f"{p}: '{key}' must be [first, last] with 0 <= first <= last")
    check_entries(cfg.suppress, str(p))
    if not 1 <= cfg.max_reports <= 2**31 - 1:   # (the runtime reads it as an int)
        raise UserError(f"{p}: 'max_reports' must be between 1 and {2**31 - 1}")
    if not 0 <= cfg.sites_budget <= 2**31 - 1:
        raise UserError(f"{p}: 'sites_budget' must be 0 (no limit) or more")
    if cfg.print_limit < 0:
        raise UserError(f"{p}: 'print_limit' must be 0 (print every finding) or more")
    return cfg


def override(cfg: Config, key: str, value, option: str) -> None:
    """The command line's value of a key (None: not given, the file's or the default stays)."""
    if value is not None:
        setattr(cfg, key, value)
        cfg.given[key] = option


def check_names(cfg: Config, programs, where: str | None) -> None:
    """Names in `kernels`, `monitor` and `ignore` must name something in the program: a typo
    would otherwise check nothing and report a clean run."""
    kernels = {k.name for p in programs for k in p.kernels}
    variables = {a.base for p in programs for a in p.accesses if a.base}
    variables |= {g.name for p in programs for g in p.globals} | {s.name for p in programs for s in p.shared}
    # reports name a global buffer as the program allocated it
    buffers = {buffer_name(p.unit.source(c.args[0].file).text(c.args[0].start, c.args[0].end))
               for p in programs for c in p.api_calls if c.name.startswith(("cudaMalloc", "cudaHostAlloc")) and c.args}
    named = {"kernels": cfg.kernels, "kernels_exclude": cfg.kernels_exclude, "monitor": cfg.monitor,
             "ignore": cfg.ignore,
             "suppress": [e.split(":", 1)[1] for e in cfg.suppress if e.startswith(("kernel:", "variable:"))]}
    for key, known in (("kernels", kernels), ("kernels_exclude", kernels), ("monitor", variables), ("ignore", variables),
                       ("suppress", kernels | variables | buffers)):
        missing = [n for n in named[key] if n not in known]
        if missing:
            listing = ", ".join(sorted(known)) or "none"
            said = cfg.given[key] if key in cfg.given else f"{where or 'hirace.toml'}: '{key}'"
            raise UserError(f"{said} names {', '.join(repr(m) for m in missing)}, which the program does not have",
                            hint=f"{'kernels' if key.startswith('kernels') else 'kernels and variables' if key == 'suppress' else 'variables accessed in kernels'}: {listing}")
