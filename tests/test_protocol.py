"""One protocol between the Python tools and the C++ runtimes: instrument/protocol.py is its
only spelling; the runtimes' header is generated from it and nothing repeats a name by hand."""
import re

import pytest

from conftest import ROOT
from instrument import genprotocol, protocol


def test_the_generated_protocol_header_is_current():
    assert genprotocol.main(["--check"]) == 0, "run `python -m instrument.genprotocol`"


# the generated headers: protocol_core.h (what the cpu emulation shares too) and protocol.h (it, and the
# tools' build macros)
GENERATED = ("protocol.h", "protocol_core.h")


def _protocol_header() -> str:
    return "".join((ROOT / "runtime/include/cudacommon" / name).read_text() for name in GENERATED)


def _sources(*globs):
    skip = ("protocol.py", *GENERATED, "genprotocol.py")
    for g in globs:
        for p in sorted(ROOT.glob(g)):
            if p.name not in skip:
                yield p, p.read_text()


def test_no_runtime_reads_an_option_or_exits_with_a_status_spelled_by_hand():
    found = []
    for p, text in _sources("runtime/include/**/*.h"):
        found += [(p.name, m) for m in re.findall(r'getenv\("[^"]*"\)', text)]
        found += [(p.name, m) for m in re.findall(r"_Exit\(\d+\)", text)]
        found += [(p.name, m) for m in re.findall(r"\bk\w+ = (?:86|87|88|99)\b", text)]
    assert found == []


def test_no_tool_spells_an_option_name_by_hand():
    names = "|".join(e.value for e in protocol.Env)
    found = [(str(p.relative_to(ROOT)), m) for p, text in
             _sources("instrument/**/*.py", "hirace/**/*.py", "cltestcheck/**/*.py", "indigo_bench/**/*.py",
                      "bench/**/*.py")
             for m in re.findall(rf"[\"']({names})[\"']", text)]
    assert found == []


def test_every_option_is_documented_and_read_by_the_runtime_it_names():
    headers = {p.relative_to(ROOT / "runtime" / "include").as_posix(): text
               for p, text in _sources("runtime/include/**/*.h")}
    for env, doc in protocol.OPTIONS.items():
        ident = "k" + "".join(w.capitalize() for w in env.name.lower().split("_"))
        assert f"::cctk::env::{ident}" in headers[doc.runtime], (env, doc.runtime)
    assert set(protocol.OPTIONS) == set(protocol.Env)


def test_operator_codes_and_loop_cases_come_from_the_protocol():
    from cltestcheck.coverage.sites import LOOP_CASES
    from cltestcheck.mutate.operators import CODE
    assert CODE == {op: code for op, (code, _) in protocol.MUTATION_OPS.items()}
    assert LOOP_CASES == ("zero", "one", "many", "boundary")
    header = _protocol_header()
    for op, (code, name) in protocol.MUTATION_OPS.items():
        assert f"  {name} = {code}," in header


def test_generated_log_writers_and_the_typed_reader_agree(tmp_path):
    """Every record written by the C++ writers reads back, field by field, as its dataclass."""
    import subprocess
    from instrument import logs
    from runtime import include_dir
    src = tmp_path / "w.cpp"
    src.write_text('#include "cudacommon/protocol.h"\nint main() {\n  namespace r = ::cctk::hirace_log;\n'
                   '  unsigned g[3] = {4, 1, 1}, b[3] = {32, 2, 1};\n'
                   '  r::write_buffer(stdout, 0, "d_\\"x\\"\\n", 4096, "a.cu", 12, 1, 0, 1);\n'
                   '  r::write_launch(stdout, 0, "k<int>", g, b, 1, 0, 2, 1, 1, 5);\n'
                   '  r::write_race(stdout, 0, 7, -1, 3, 2, 35, 1, 5, 1, 0, 0, 1ull << 40, 9, 1);\n'
                   '  r::write_memory_error(stdout, 0, 7, 3, 2, 1, 0, -1, -(1ll << 40), 256, 4, 3);\n'
                   '  r::write_end(stdout, 4, 100, 900, 1);\n}\n')
    exe = tmp_path / "w"
    subprocess.run(["g++", "-std=c++17", f"-I{include_dir()}", str(src), "-o", str(exe)], check=True)
    log = tmp_path / "log.jsonl"
    log.write_text(subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout)
    got = logs.read(log, protocol.HIRACE_LOG, "the log")
    assert [(b.id, b.name, b.size, b.granularity, b.checked, b.budgeted) for b in got["buffer"]] == \
        [(0, 'd_"x"\n', 4096, 1, 0, 1)]
    [launch] = got["launch"]
    assert (launch.kernel, launch.grid, launch.block, launch.dropped) == ("k<int>", (4, 1, 1), (32, 2, 1), 1)
    [race] = got["race"]
    assert (race.site, race.prior_site, race.tid, race.offset, race.count, race.budgeted) == (7, -1, 3, 1 << 40, 9, 1)
    [mem] = got["memory_error"]
    assert (mem.buffer, mem.offset, mem.limit, mem.size, mem.count) == (-1, -(1 << 40), 256, 4, 3)
    assert launch.memory_dropped == 2 and launch.quiet == 1 and launch.failed == 1 and launch.quiet_params == 5
    assert got["buffer"][0].line == 12
    assert got["end"][0].tool_bytes == 900 and got["end"][0].sites_evicted == 1


def test_every_runtime_log_is_written_by_generated_writers_only():
    found = [(p.name, m) for p, text in _sources("runtime/include/**/*.h")
             for m in re.findall(r'\\"\w+\\": ', text)]
    assert found == [], "a runtime writes a log record by hand: declare it in instrument/protocol.py"


def test_cltc_logs_written_in_cpp_and_in_python_read_back_the_same(tmp_path):
    """The cltc runtimes' logs (C++ writers, and the Python twin gpu_host uses) read back as
    typed records, and only when complete."""
    import subprocess
    from instrument import logs
    from runtime import include_dir
    src = tmp_path / "w.cpp"
    src.write_text('#include "cudacommon/protocol.h"\nint main() {\n  namespace c = ::cctk::coverage_log;\n'
                   '  unsigned blk[3] = {2, 0, 0};\n  c::write_flag(stdout, 3);\n  c::write_barrier_flag(stdout, 1);\n'
                   '  c::write_divergence(stdout, 0, blk, 31, 64);\n  c::write_end(stdout, 5, 2);\n}\n')
    exe = tmp_path / "w"
    subprocess.run(["g++", "-std=c++17", f"-I{include_dir()}", str(src), "-o", str(exe)], check=True)
    from_cpp = tmp_path / "cpp.jsonl"
    from_cpp.write_text(subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout)
    from_py = tmp_path / "py.jsonl"
    logs.write(from_py, protocol.COVERAGE_LOG,
               [("flag", {"id": 3}), ("barrier_flag", {"id": 1}),
                ("divergence", {"barrier": 0, "block": [2, 0, 0], "arrived": 31, "threads": 64}),
                ("end", {"launches": 5, "divergence_total": 2})])
    assert from_py.read_text() == from_cpp.read_text()
    got = logs.read_complete(from_cpp, protocol.COVERAGE_LOG, "the coverage log")
    assert [f.id for f in got["flag"]] == [3] and got["divergence"][0].block == (2, 0, 0)
    assert got["end"][0].launches == 5
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(from_cpp.read_text().splitlines(keepends=True)[:-1]))
    with pytest.raises(logs.LogError, match="the coverage log is incomplete"):
        logs.read_complete(cut, protocol.COVERAGE_LOG, "the coverage log")
    with pytest.raises(ValueError, match="does not match its declaration"):
        logs.write(tmp_path / "bad.jsonl", protocol.REACH_LOG, [("reached", {"site": -1})])
    assert not (tmp_path / "bad.jsonl").exists()


@pytest.mark.parametrize("line,message", [
    ("not json", "line 2 is not a JSON record"),
    ('{"record": "wormhole"}', "line 2 is not a record it declares"),
    ('{"record": "buffer", "id": 0, "name": 3, "size": -1}', "line 2 (buffer) has bad or missing name, size"),
])
def test_a_damaged_log_is_a_clear_error_naming_its_line(tmp_path, line, message):
    from instrument import logs
    log = tmp_path / "log.jsonl"
    log.write_text('{"record": "end", "granularity": 4, "user_bytes": 1, "tool_bytes": 1, "sites_evicted": 0}\n' + line + "\n")
    with pytest.raises(logs.LogError, match=re.escape(message)):
        logs.read(log, protocol.HIRACE_LOG, "hirace's log")


@pytest.mark.parametrize("race,message", [
    ('"launch": 5, "site": 0, "prior_site": -1', "race record 1 names launch 5, which the log does not have"),
    ('"launch": 0, "site": 9, "prior_site": -1', "race record 1 names site 9; the program has 1"),
    ('"launch": 0, "site": 0, "prior_site": 4', "race record 1 names site 4; the program has 1"),
])
def test_race_records_that_name_what_does_not_exist_are_reported_not_raised(tmp_path, race, message):
    """A program that writes over hirace's log buffer leaves records naming launches or sites that
    do not exist: hirace says so (issue: memory errors), it never indexes past its tables."""
    from hirace.sites import Site
    from hirace.results import collect
    from instrument import logs
    log = tmp_path / "log.jsonl"
    log.write_text('{"record": "launch", "id": 0, "kernel": "k", "grid": [1, 1, 1], "block": [32, 1, 1], '
                   '"dropped": 0, "wrapped": 0, "memory_dropped": 0, "quiet": 0, "failed": 0, "quiet_params": 0}\n'
                   '{"record": "race", ' + race + ', "tid": 1, "bid": 0, "prior_tid": 0, "prior_bid": 0, '
                   '"prior_state": 1, "access": 1, "space": 0, "buffer": 0, "offset": 0, "count": 1, "budgeted": 0}\n'
                   '{"record": "end", "granularity": 4, "user_bytes": 1, "tool_bytes": 1, "sites_evicted": 0}\n')
    site = Site(0, "k.cu", 1, 1, "write", "a[i]", "k", "a", "global")
    with pytest.raises(logs.LogError, match=re.escape(message)):
        collect(log, [site])


@pytest.mark.parametrize("record,message", [
    ('"launch": 3, "site": 0, "buffer": -1, "count": 1', "memory error record 1 names launch 3"),
    ('"launch": 0, "site": 2, "buffer": -1, "count": 1', "memory error record 1 names site 2; the program has 1"),
    ('"launch": 0, "site": 0, "buffer": 7, "count": 1', "memory error record 1 holds an access, memory space or buffer"),
    ('"launch": 0, "site": 0, "buffer": -1, "count": 0', "memory error record 1 counts no access"),
])
def test_memory_error_records_that_name_what_does_not_exist_are_reported_not_raised(tmp_path, record, message):
    from hirace.sites import Site
    from hirace.results import collect
    from instrument import logs
    log = tmp_path / "log.jsonl"
    log.write_text('{"record": "launch", "id": 0, "kernel": "k", "grid": [1, 1, 1], "block": [32, 1, 1], '
                   '"dropped": 0, "wrapped": 0, "memory_dropped": 0, "quiet": 0, "failed": 0, "quiet_params": 0}\n'
                   '{"record": "memory_error", ' + record + ', "tid": 1, "bid": 0, "access": 1, "space": 0, '
                   '"offset": -4, "limit": 16, "size": 4}\n'
                   '{"record": "end", "granularity": 4, "user_bytes": 1, "tool_bytes": 1, "sites_evicted": 0}\n')
    site = Site(0, "k.cu", 1, 1, "write", "a[i]", "k", "a", "global")
    with pytest.raises(logs.LogError, match=re.escape(message)):
        collect(log, [site])


def test_race_records_logged_twice_at_once_are_one_report_with_the_counts_summed(tmp_path):
    """On a GPU, threads that find the same race at once may each add a record (the device's
    dedup reads the count before any of them writes): the collector merges them."""
    from hirace.sites import Site
    from hirace.results import collect
    log = tmp_path / "log.jsonl"
    race = ('{"record": "race", "launch": 0, "site": 0, "prior_site": 1, "tid": 3, "bid": 0, "prior_tid": %d, '
            '"prior_bid": 0, "prior_state": 1, "access": 1, "space": 1, "buffer": 0, "offset": 0, "count": %d, '
            '"budgeted": 0}\n')
    log.write_text('{"record": "launch", "id": 0, "kernel": "k", "grid": [1, 1, 1], "block": [32, 1, 1], '
                   '"dropped": 0, "wrapped": 0, "memory_dropped": 0, "quiet": 0, "failed": 0, "quiet_params": 0}\n' + race % (1, 2) + race % (5, 3) +
                   '{"record": "end", "granularity": 4, "user_bytes": 1, "tool_bytes": 1, "sites_evicted": 0}\n')
    sites = [Site(0, "k.cu", 3, 1, "write", "a[i]", "k", "a", "shared"),
             Site(1, "k.cu", 2, 1, "read", "a[j]", "k", "a", "shared")]
    res = collect(log, sites)
    assert len(res.races) == 1 and res.races[0].count == 5 and res.races[0].prior_thread == (1, 0, 0)


# ---------------------------------------------------------------- build macros, constants, defaults

def _headers() -> dict[str, str]:
    return {p.relative_to(ROOT / "runtime" / "include").as_posix(): text
            for p, text in _sources("runtime/include/**/*.h")}


# Headers that may still hold a default of their own, beside the generated one (none: keep it so)
_OWN_DEFAULTS_PENDING: set[str] = set()


def test_every_build_macro_default_comes_from_the_protocol():
    """A planner's -D macros and their defaults are declared once (protocol.py MACROS): the header
    has each default, no runtime header spells one, and every macro is read where it says."""
    header = _protocol_header()
    headers = _headers()
    for m, doc in protocol.MACROS.items():
        assert f"#ifndef {m.value}\n#define {m.value} {doc.default} " in header, m
        assert m.value in headers[doc.runtime], (m, doc.runtime)
        if doc.set_by:
            assert (ROOT / doc.set_by).is_file(), doc.set_by
    by_hand = [(name, m) for name, text in headers.items() if name not in _OWN_DEFAULTS_PENDING
               for m in re.findall(r"#ifndef ((?:HIRACE|CLTC)_\w+)\s*\n\s*#define \1\b", text)
               if not m.startswith("HIRACE_BENCH_") and not m.endswith("_H")]
    assert by_hand == [], "a runtime default by hand: declare the macro in instrument/protocol.py MACROS"


def test_the_planners_pass_declared_macros_only():
    from cltestcheck.coverage.planner import CoveragePlanner
    from cltestcheck.mutate.planner import MutationPlanner
    from hirace.config import Config
    from hirace.planner import HiracePlanner
    planners = [HiracePlanner(Config()), HiracePlanner(Config(), lower_cpu=True),
                HiracePlanner(Config(), unit_mode=True), CoveragePlanner(), CoveragePlanner(count_executions=True),
                MutationPlanner([])]
    names = {d.split("=", 1)[0] for p in planners for d in p.defines()}
    assert names and names <= {m.value for m in protocol.MACROS}, names - {m.value for m in protocol.MACROS}
    assert protocol.define(protocol.Macro.HIRACE_UNITS, True) == "HIRACE_UNITS=1"


def test_constants_both_sides_size_things_by_are_generated():
    header = _protocol_header()
    for name, value in (("kQuietParams", protocol.QUIET_PARAMS), ("kSiteIdBits", protocol.SITE_ID_BITS),
                        ("kSeenBits", protocol.SEEN_BITS), ("kBitRowLineBits", protocol.BIT_ROW_LINE_BITS),
                        ("kBitRowLineWords", protocol.BIT_ROW_LINE_WORDS)):
        assert f"constexpr unsigned {name} = {value};" in header, name
        found = [p for p, text in _headers().items() if re.search(rf"\b{name} = \d", text)]
        assert found == [], (name, found)
    assert "kQuietParams = ::cctk::kQuietParams" in _headers()["hirace/records.h"]
    assert "enum Space : unsigned { kGlobal = 0, kShared = 1 };" in header
    assert [p for p, text in _headers().items() if re.search(r"\bkShared = \d", text)] == []
    assert protocol.bit_row_words(16, 16) == 16 and protocol.bit_row_words(1024, 16) == 32


def test_every_quiet_form_and_hook_has_its_namesakes():
    """The quiet forms and hooks the planner writes exist in namespace hirace and in the quiet
    version's namespace q (quiet_version.h checks it at compile time through the generated list)."""
    header = _protocol_header()
    headers = _headers()
    whole = headers["hirace/quiet.h"] + headers["hirace/clocks.h"]
    version = headers["hirace/quiet_version.h"]
    for name in (*protocol.QUIET_FORMS, *protocol.QUIET_HOOKS):
        assert f"X({name})" in header, name
        assert re.search(rf"\b{name}\(", whole), name
        assert re.search(rf"\b{name}\(", version), name
    assert "CCTK_HIRACE_QUIET_FORMS(HIRACE_NAMED)" in version


@pytest.mark.parametrize("spec,mode,first,seed", [
    ("free", "FREE", 0, 0), ("asc", "SERIAL", 0, 0), ("desc", "SERIAL", 1, 0), ("first:17", "FIRST", 17, 0),
    ("random:99", "SERIAL", 2, 99), ("none", "NONE", 0, 0), (None, "NONE", 0, 0), ("sideways", "NONE", 0, 0),
    ("first:", "FIRST", 0, 0), ("random:12x", "SERIAL", 2, 12),
])
def test_a_schedule_spec_is_read_as_the_runtime_reads_it(spec, mode, first, seed):
    s = protocol.parse_schedule(spec)
    assert (s.mode, s.first, s.seed) == (protocol.ScheduleMode[mode], first, seed)


def test_strict_schedule_specs_and_their_spelling():
    assert protocol.parse_schedule("first:3x", strict=True) is None
    assert protocol.parse_schedule("sideways", strict=True) is None
    for f in protocol.SCHEDULE_FORMS:
        spec = protocol.schedule_spec(f.name, 5) if f.arg else protocol.schedule_spec(f.name)
        s = protocol.parse_schedule(spec, strict=True)
        assert s.mode == f.mode, spec
    header = _protocol_header()
    assert "inline Spec parse(const char *v)" in header
    schedule_h = (ROOT / "runtime/include/cltc/schedule.h").read_text()
    assert "::cctk::schedule::parse(" in schedule_h and "rfind(\"first:\"" not in schedule_h


def test_the_schedule_families_are_read_once():
    from cltestcheck import config
    from cltestcheck.amplify import schedules
    from instrument.errors import UserError
    assert schedules.families("first, desc") == ["first", "desc"] == schedules.families(["first", "desc"])
    assert schedules.make("first:17, desc", 40, 0) == ["first:17", "desc"]
    with pytest.raises(UserError, match="unknown schedule family 'sideways'"):
        schedules.families("first,sideways")
    assert config._schedules(None, ["serial", "first:3"]) == "serial,first:3"
    with pytest.raises(TypeError, match="schedule families"):
        config._schedules(None, ["sideways"])


# ---------------------------------------------------------------- docs/configuration.md

def _doc_table(heading: str) -> dict[str, str]:
    """The first table after `heading` in docs/configuration.md: its names (`key`, or `table key` where
    its first column is the table) -> their default cells, as written (`1024`, or a dash: none)."""
    text = (ROOT / "docs/configuration.md").read_text()
    lines = text[text.index(heading):].splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("|"))
    table = []
    for line in lines[first:]:
        if not line.startswith("|"):
            break
        table.append([c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]])
    head, rows = table[0], table[2:]
    if head[0] == "table":   # | table | key | default | ...
        return {f"{r[0].strip('`')} {r[1].strip('`')}": r[2] for r in rows}
    return {r[0].strip("`"): r[1] for r in rows}


def _cell(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "`true`" if v else "`false`"
    return f"`{v:g}`" if isinstance(v, float) else f"`{v}`"


def test_the_doc_table_of_hirace_toml_matches_the_declared_defaults():
    from hirace import config
    got = _doc_table("## hirace: `hirace.toml`")
    want = {k: "—" if getattr(config.Config(), k) is None else f"`{config.default_text(k)}`" for k in config.HELP}
    assert got == want, "update docs/configuration.md's hirace.toml table"
    assert set(config.HELP) == {f.name for f in __import__("dataclasses").fields(config.Config)}


def test_the_doc_table_of_cltc_keys_matches_the_declared_defaults():
    from cltestcheck import cli, config
    app = cli.build_app()
    want = {}
    for key, (dest, _, _) in config.SHARED.items():
        defaults = {app.parsers[c].get_default(dest) for c in config.KEYS}
        assert len(defaults) == 1, (key, defaults)   # (a shared key has one default in every command)
        want[f"any {key}"] = _cell(defaults.pop())
    for command, keys in config.KEYS.items():
        for key, (dest, _, _) in keys.items():
            want[f"[{command}] {key}"] = _cell(app.parsers[command].get_default(dest))
    assert _doc_table("## cltc: options in a file") == want, "update docs/configuration.md's cltc table"


def test_the_doc_tables_of_the_runtimes_match_the_protocol():
    env = {e.value: "—" if d.default is None else f"`{int(d.default)}`" for e, d in protocol.OPTIONS.items()}
    assert _doc_table("## The runtimes' environment") == env, "update docs/configuration.md's environment table"
    macros = {m.value: f"`{d.default}`" for m, d in protocol.MACROS.items()}
    assert _doc_table("## Build macros") == macros, "update docs/configuration.md's build macro table"


def test_hirace_defaults_that_the_runtime_shares_are_the_runtimes():
    from hirace.config import Config
    header = _protocol_header()
    assert Config().max_reports == protocol.option_default(protocol.Env.HIRACE_MAX_REPORTS)
    assert Config().prior_sites == protocol.option_default(protocol.Env.HIRACE_PRIOR_SITES)
    assert protocol.option_default(protocol.Env.HIRACE_EXITCODE) == protocol.Exit.FINDINGS
    assert "constexpr int kHiraceMaxReports = 1024;" in header
    state = _headers()["hirace/host_state.h"]
    for name in ("kHiracePriorSites", "kHiraceBounds", "kHiraceQuietVersions", "kHiraceMaxReports"):
        assert f"::cctk::env_default::{name}" in state, name
