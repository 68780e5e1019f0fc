"""What a run of hirace is given and what it promises back (issue 43): inputs that are not regular
files, odd names, deep or marked sources, a program that forks, reads stdin or fails to launch,
a thread range that matches nothing, a report file when the program times out. Each case failed
before its fix: an internal error, a hang, a wrong reason, a missed race or a pass."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from hirace import report_sarif
from instrument.frontend.deep import run_deep
from instrument.errors import UserError
from instrument.frontend.rewrite import BOM, Edit, apply


def _hirace(*args, cwd, stdin=None, timeout=600):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "hirace.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, input=stdin, timeout=timeout)


# One program for several promises, built and run once: it starts with a byte order mark, reads a
# line of stdin, runs a racy kernel (`early`: a[1] written by every thread), makes four launches that
# fail (2048 threads a block), and forks a child that runs another racy kernel (a[0]).
PROGRAM = BOM.decode() + r"""#include <cstdio>
#include <sys/wait.h>
#include <unistd.h>
__global__ void racy(int *a) { a[0] = threadIdx.x; }
__global__ void clean(int *a) { a[threadIdx.x] = 1; }
__global__ void early(int *a) { a[1] = threadIdx.x; }
int main() {
  char line[64];
  if (!fgets(line, sizeof line, stdin)) { printf("no stdin\n"); return 3; }
  printf("read %s", line);
  int *d;
  cudaMalloc(&d, 4096 * sizeof(int));
  early<<<1, 64>>>(d);
  cudaDeviceSynchronize();
  for (int i = 0; i < 4; ++i) clean<<<1, 2048>>>(d);
  cudaGetLastError();
  pid_t child = fork();
  if (child == 0) { racy<<<1, 64>>>(d); cudaDeviceSynchronize(); return 0; }
  int status;
  waitpid(child, &status, 0);
  printf("child %d\n", WEXITSTATUS(status));
  return 0;
}
"""


@pytest.fixture(scope="module")
def forking_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("fork")
    (d / "prog.cu").write_text(PROGRAM)
    r = _hirace("run", "--format", "json", "--output", d / "r.json", "prog.cu", cwd=d, stdin="hello\n")
    return r, json.loads((d / "r.json").read_text())


def test_a_race_in_a_forked_child_is_reported_and_the_parents_once(forking_run):
    r, rep = forking_run
    assert r.returncode == 1, r.stderr
    assert sorted(x["kernel"] for x in rep["races"]) == ["early", "racy"]
    assert "child 0" in r.stdout
    # the child's copy of the parent's launch and of its race (read back before the fork) is the
    # parent's: counted once (read back after the fork, the child's log named a launch it lacks)
    assert rep["summary"]["launches"] == 2


def test_the_program_reads_the_users_stdin_and_starts_with_its_mark(forking_run):
    r, _ = forking_run
    assert "read hello" in r.stdout   # (the byte order mark before the prelude broke the build)


def test_launches_that_failed_are_not_counted_as_checked(forking_run):
    _, rep = forking_run
    assert rep["summary"]["failed_launches"] == 4


def test_a_thread_range_that_matches_no_thread_is_not_a_pass(tmp_path):
    (tmp_path / "k.cu").write_text("__global__ void k(int *a) { a[threadIdx.x] = 1; }\n"
                                   "int main() { int *d; cudaMalloc(&d, 256); k<<<1, 64>>>(d); "
                                   "cudaDeviceSynchronize(); return 0; }\n")
    (tmp_path / "hirace.toml").write_text("threads = [1000, 2000]\n")
    r = _hirace("run", "k.cu", cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "matched no thread" in r.stderr and "64 threads per block" in r.stderr


def test_a_program_that_times_out_still_gets_its_json_report(tmp_path):
    (tmp_path / "k.cu").write_text("#include <unistd.h>\nint main() { sleep(60); return 0; }\n"
                                   "__global__ void k(int *a) { a[threadIdx.x] = 1; }\n")
    out = tmp_path / "r.json"
    r = _hirace("run", "--timeout", "2", "--format", "json", "--output", out, "k.cu", cwd=tmp_path)
    assert r.returncode == 2
    summary = json.loads(out.read_text())["summary"]
    assert "timed out" in summary["error"] and summary["exit_status"] == 2


@pytest.mark.parametrize("case", ["fifo_source", "fifo_config", "dev_zero_include", "twice", "not_utf8_name",
                                  "deleted_cwd", "kernel_named_hirace"])
def test_bad_input_is_named_with_the_reason(tmp_path, case):
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(int *a) { a[0] = 1; }\nint main() { return 0; }\n")
    args, cwd = ["run", "k.cu"], tmp_path
    if case == "fifo_source":
        os.mkfifo(tmp_path / "f.cu")
        args, want = ["run", "f.cu"], "f.cu: is a FIFO, not a regular file"
    elif case == "fifo_config":
        os.mkfifo(tmp_path / "c.toml")
        args, want = ["run", "--config", "c.toml", "k.cu"], "c.toml: is a FIFO"
    elif case == "dev_zero_include":   # (libclang read it until the machine ran out of memory)
        src.write_text('#include "/dev/zero"\n' + src.read_text())
        want = "k.cu:1: #include names /dev/zero, which is not a regular file"
    elif case == "twice":
        args, want = ["run", "k.cu", "./k.cu"], "named twice"
    elif case == "not_utf8_name":
        name = os.fsdecode(b"k\xe9.cu")
        (tmp_path / name).write_text(src.read_text())
        args, want = ["run", name], "the file name is not UTF-8"
    elif case == "deleted_cwd":
        cwd = tmp_path / "gone"
        cwd.mkdir()
        args = ["-c", f"import os, sys; os.chdir({str(cwd)!r}); os.rmdir({str(cwd)!r}); "
                      f"sys.argv = ['hirace', 'run', 'k.cu']; from hirace.cli import main; sys.exit(main())"]
        r = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert r.returncode == 2 and "current directory no longer exists" in r.stderr, r.stderr
        return
    else:
        src.write_text("__global__ void hirace(int *a) { a[0] = 1; }\nint main() { return 0; }\n")
        args, want = ["instrument", "k.cu", "-o", tmp_path / "out"], "k.cu:1: 'hirace' is the name of a namespace"
    r = _hirace(*args, cwd=cwd, timeout=120)
    assert r.returncode == 2, r.stderr
    assert want in r.stderr and "Traceback" not in r.stderr and "internal error" not in r.stderr


def test_a_deeply_nested_expression_is_followed(tmp_path):
    terms = " + ".join("a[0]" for _ in range(1200))   # (1,200 deep: a RecursionError before)
    (tmp_path / "k.cu").write_text(f"__global__ void k(int *a, int *b) {{ b[threadIdx.x] = {terms}; }}\n")
    r = _hirace("instrument", "k.cu", "-o", tmp_path / "out", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "instrumented 1201 sites" in r.stdout


def test_a_tree_deeper_than_can_be_followed_is_a_user_error():
    def endless(n=0):
        return endless(n + 1)
    with pytest.raises(UserError, match="k.cu: the source nests"):
        run_deep(endless, "k.cu")
    assert run_deep(lambda: 7, "k.cu") == 7


def test_a_byte_order_mark_stays_first():
    data = BOM + b"int x;\n"
    out = apply(data, [Edit("f.cu", len(BOM), len(BOM), "/*a*/", "t")], "f.cu", prelude=["#include <p.h>"])
    assert out.startswith(BOM + b"#include <p.h>\n") and out.count(BOM) == 1 and b"/*a*/int x;" in out


def test_sarif_uris_are_percent_encoded(tmp_path):
    f = tmp_path / "my dir" / "a#b.cu"
    assert report_sarif._artifact(str(f), tmp_path)["uri"] == "my%20dir/a%23b.cu"
