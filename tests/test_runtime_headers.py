"""The runtime headers are split by facility: none is long, each says what it holds, the umbrellas the
instrumented code includes (hirace/runtime.h, hirace/host.h) only include them, and the benchmark
ablation switches live in the bench headers under names, never as numbers in the product code."""
import re

from conftest import ROOT

INCLUDE = ROOT / "runtime" / "include"
# Headers allowed over the limit (none: keep it so)
_LONG_PENDING: set[str] = set()


def _headers():
    return sorted(p for p in INCLUDE.rglob("*.h") if p.is_file())


def test_no_runtime_header_is_longer_than_500_lines():
    long = {p.relative_to(INCLUDE).as_posix(): n for p in _headers()
            if (n := len(p.read_text().splitlines())) > 500}
    assert set(long) <= _LONG_PENDING, long


def test_each_hirace_header_says_what_it_holds_and_has_its_guard():
    for p in sorted((INCLUDE / "hirace").glob("*.h")):
        text = p.read_text()
        assert text.startswith("//"), p.name
        guard = re.search(r"^#ifndef (\w+_H)\n#define \1$", text, re.M)
        assert guard and f"#endif  // {guard.group(1)}" in text, p.name


def test_the_umbrellas_only_include_the_facilities_in_order():
    for name, facilities in (("runtime.h", ["config.h", "update.h", "cudacommon/protocol.h",
                                            "cudacommon/qualifiers.h", "bench_switches.h", "records.h",
                                            "launch_state.h", "clocks.h", "locate.h", "device_log.h", "check.h",
                                            "library_checks.h", "bench_hooks.h", "quiet.h", "quiet_version.h"]),
                             ("host.h", ["host_state.h", "host_fork.h", "host_init.h", "host_alloc.h",
                                         "host_readback.h", "host_quiet.h", "host_kernel_pointers.h", "host_launch.h", "host_log.h",
                                         "host_unit.h", "host_streams.h"])):
        text = (INCLUDE / "hirace" / name).read_text()
        code = [line for line in text.splitlines() if line and not line.startswith("//")]
        includes = [m.group(1) for line in code if (m := re.match(r'#include "([^"]+)"', line))]
        assert includes == facilities, name
        assert len(code) == len(includes) + 3, name   # the guard's three lines, nothing else
        for f in facilities:
            assert (INCLUDE / "hirace" / f).is_file() or (INCLUDE / f).is_file(), f


def test_benchmark_switches_are_named_and_live_in_the_bench_headers():
    switches = (INCLUDE / "hirace" / "bench_switches.h").read_text()
    declared = set(re.findall(r"^#ifndef (HIRACE_BENCH_\w+)$", switches, re.M)) - {"HIRACE_BENCH_SWITCHES_H"}
    derived = set(re.findall(r"^#define (HIRACE_BENCH_\w+_HOOK) 1$", switches, re.M))
    assert len(declared) == 15 and len(derived) == 3
    performance = (ROOT / "docs" / "performance.md").read_text()
    for name in declared:
        assert f"`{name}`" in performance, name
    for p in _headers():
        text = p.read_text()
        if p.name != "bench_switches.h":
            assert "HIRACE_BENCH_CUT" not in text, p.name
        used = {n for n in re.findall(r"\bHIRACE_BENCH_\w+", text) if not n.endswith("_")}   # (not _*)
        assert used <= declared | derived | {"HIRACE_BENCH_CUT", "HIRACE_BENCH_SWITCHES_H",
                                             "HIRACE_BENCH_HOOKS_H"}, (p.name, used - declared - derived)
    # the product headers hold no stand-in: those are in bench_hooks.h, namespace hirace::bench
    for name in ("check.h", "quiet.h", "clocks.h", "quiet_version.h"):
        text = (INCLUDE / "hirace" / name).read_text()
        assert "hidden_check" not in text and "QuietRead" not in text and "slow_call" not in text, name


def test_a_stale_numbered_switch_fails_the_build(tmp_path):
    import subprocess
    src = tmp_path / "b.cpp"
    src.write_text('#include "hirace/bench_switches.h"\nint main() { return HIRACE_BENCH_NO_SHADOW_UPDATE; }\n')
    ok = subprocess.run(["g++", "-std=c++17", f"-I{INCLUDE}", "-fsyntax-only", str(src)], capture_output=True,
                        text=True)
    assert ok.returncode == 0, ok.stderr
    old = subprocess.run(["g++", "-std=c++17", f"-I{INCLUDE}", "-DHIRACE_BENCH_CUT=3", "-fsyntax-only", str(src)],
                         capture_output=True, text=True)
    assert old.returncode != 0 and "HIRACE_BENCH_CUT=N is gone" in old.stderr


# the macros the planner may set differently in units built one by one (hirace-cc)
_PER_UNIT = re.compile(r"\bHIRACE_(LANE_GROUPS|GRID_SYNCS|MEMORY_SYNC|STREAMS|WHOLE_WARPS)\b")
# headers whose whole text a setting guards: their functions exist only in units with that setting, the
# same code in each of them
_WHOLE_FILE_GUARDED = {"hirace/stream_footprint.h", "hirace/host_streams.h"}


def test_code_a_units_settings_change_is_that_units_own():
    """Every use of a per-unit setting in the runtime's code lies in the namespace named after the unit's
    settings (config.h HIRACE_UNIT_CONFIG), or in a per-unit anonymous namespace, or only guards includes
    before the header's first namespace: else the linker may keep one unit's copy of an inline function
    for units built otherwise (tests/test_projects.py shows what that did)."""
    stray = []
    for p in _headers():
        name = p.relative_to(INCLUDE).as_posix()
        if name in _WHOLE_FILE_GUARDED or name in ("cudacommon/protocol.h", "hirace/config.h"):
            continue
        own, seen_namespace = 0, False
        for i, line in enumerate(p.read_text().splitlines(), 1):
            code = line.split("//")[0]
            if re.match(r"\s*(inline namespace HIRACE_UNIT_CONFIG|namespace) \{", code):
                own += 1
            elif re.match(r"\}\s*//\s*(inline namespace HIRACE_UNIT_CONFIG|namespace)$", line.strip()):
                own -= 1
            seen_namespace |= code.startswith("namespace ")
            if _PER_UNIT.search(code) and not own and seen_namespace:
                stray.append(f"{name}:{i}: {line.strip()}")
    assert not stray, stray
