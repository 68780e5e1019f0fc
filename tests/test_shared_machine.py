"""A machine shared with other users (a GPU host, a CI runner): no code, build or setting is taken
from a place another user can write, and no report is written over an input or replaces a device
file (issue 43). Another user is simulated by what they could do: a world-writable directory, a
symlink planted where a private directory should be, a file owned by another uid (where the tests
run as root)."""
from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from instrument.compile import native_cache
from instrument.errors import UserError
from instrument.execution import host_builds
from instrument.ownership import private_dir, trusted_file

RACY = ("__global__ void k(int *a) { a[0] = threadIdx.x; }\n"
        "int main() { int *d; cudaMalloc(&d, 64 * sizeof(int)); k<<<1, 64>>>(d); cudaDeviceSynchronize(); return 0; }\n")


def _hirace(*args, cwd, env=None):
    e = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run([sys.executable, "-m", "hirace.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=e, timeout=600)


def test_a_private_directory_is_made_closed_and_one_others_could_use_is_refused(tmp_path):
    made = private_dir(tmp_path / "a" / "cache")
    assert stat.S_IMODE(os.stat(made).st_mode) == 0o700
    old = tmp_path / "old"
    old.mkdir(mode=0o755)
    os.chmod(old, 0o755)
    assert stat.S_IMODE(os.stat(private_dir(old)).st_mode) == 0o700   # ours, only readable: closed
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    os.chmod(open_dir, 0o777)
    with pytest.raises(UserError, match="others may write it"):
        private_dir(open_dir)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (tmp_path / "planted").symlink_to(elsewhere)
    with pytest.raises(UserError, match="it is a symlink"):
        private_dir(tmp_path / "planted")
    if os.geteuid() == 0:
        theirs = tmp_path / "theirs"
        theirs.mkdir(mode=0o700)
        os.chown(theirs, 4242, 4242)
        with pytest.raises(UserError, match="belongs to another user"):
            private_dir(theirs)


def test_a_helper_planted_in_a_cache_others_can_write_is_never_run(tmp_path, monkeypatch):
    cache = tmp_path / "shared-cache"
    cache.mkdir()
    os.chmod(cache, 0o777)
    source = tmp_path / "helper.c"
    source.write_text("int main(void) { return 0; }\n")
    digest = hashlib.sha256(source.read_bytes() + b"key").hexdigest()[:16]
    planted = cache / f"helper-{digest}"
    planted.write_text("#!/bin/sh\ntouch PWNED\n")
    os.chmod(planted, 0o755)
    monkeypatch.setattr(native_cache, "_caches", lambda: [cache])
    exe, why = native_cache.compiled("helper", source, "key", lambda out: ["cc", str(source), "-o", str(out)])
    assert exe is None and "others may write it" in why


def test_campaign_scratch_in_a_planted_place_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("CCTK_SCRATCH", str(tmp_path))
    target = tmp_path / "someone-elses"
    target.mkdir(mode=0o700)
    (tmp_path / f"cctk-{os.getuid()}").symlink_to(target)
    with pytest.raises(UserError, match="it is a symlink"):
        host_builds.scratch_root("c1")
    assert not any(target.iterdir())


def test_a_config_others_could_have_written_is_ignored_with_a_warning(tmp_path):
    """A hirace.toml that ignores everything, left in a directory anyone may write (as /tmp without
    its sticky bit), does not hide the race; the user's own is used."""
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    (shared / "hirace.toml").write_text('ignore = ["a", "d"]\n')
    project = shared / "project"
    project.mkdir(mode=0o755)
    (project / "racy.cu").write_text(RACY)
    res = _hirace("run", "--backend", "cpu", "racy.cu", cwd=project)
    assert res.returncode == 1 and "data race" in res.stderr, res.stderr[-2000:]
    assert f"warning: ignoring {shared / 'hirace.toml'}: another user could have written it" in res.stderr
    assert trusted_file(shared / "hirace.toml")
    os.chmod(shared, 0o755)
    assert trusted_file(shared / "hirace.toml") == ""


def test_reports_go_to_devices_and_pipes_as_streams_never_over_what_the_run_read(tmp_path, own_build_cache):
    (tmp_path / "data.h").write_text("#define N 64\n")
    (tmp_path / "racy.cu").write_text('#include "data.h"\n' + RACY)
    res = _hirace("run", "--backend", "cpu", "--format", "json", "--output", "/dev/null", "racy.cu", cwd=tmp_path)
    assert res.returncode == 1 and stat.S_ISCHR(os.stat("/dev/null").st_mode), res.stderr[-2000:]
    res = _hirace("run", "--backend", "cpu", "--format", "json", "--output", "/dev/stdout", "racy.cu", cwd=tmp_path)
    assert res.returncode == 1 and '"races"' in res.stdout, res.stderr[-2000:]
    before = (tmp_path / "data.h").read_bytes()
    res = _hirace("run", "--backend", "cpu", "--output", "data.h", "racy.cu", cwd=tmp_path)
    assert res.returncode == 2 and "refusing" in res.stderr and (tmp_path / "data.h").read_bytes() == before
    res = _hirace("run", "--backend", "cpu", "--output", "newdir/", "racy.cu", cwd=tmp_path)
    assert res.returncode == 2 and "names a directory" in res.stderr and not (tmp_path / "newdir").exists()


def test_a_fifo_report_reaches_its_reader(tmp_path):
    (tmp_path / "racy.cu").write_text(RACY)
    fifo = tmp_path / "report.pipe"
    os.mkfifo(fifo)
    with open(tmp_path / "read.json", "wb") as sink:
        reader = subprocess.Popen(["cat", str(fifo)], stdout=sink)
        try:
            res = _hirace("run", "--backend", "cpu", "--format", "json", "--output", fifo, "racy.cu", cwd=tmp_path)
        finally:
            reader.wait(timeout=60)
    assert res.returncode == 1 and stat.S_ISFIFO(os.stat(fifo).st_mode), res.stderr[-2000:]
    assert '"races"' in (tmp_path / "read.json").read_text()


def test_a_race_written_in_a_macro_argument_is_reported(tmp_path):
    """An access in an argument the macro uses as code is checked; one in an argument the macro makes
    text of (assert) is named in a warning, never silently passed over."""
    (tmp_path / "macro.cu").write_text(
        "#include <cassert>\n#define W(x) (x)\n"
        "__global__ void k(const int *in, int *out) {\n  W(out[0]) = in[threadIdx.x];\n"
        "  assert(in[threadIdx.x] >= 0);\n}\n"
        "int main() { int *a, *b; cudaMalloc(&a, 256); cudaMalloc(&b, 256); cudaMemset(a, 0, 256);\n"
        "  k<<<1, 64>>>(a, b); cudaDeviceSynchronize(); return 0; }\n")
    res = _hirace("run", "--backend", "cpu", "macro.cu", cwd=tmp_path)
    assert res.returncode == 1 and "macro.cu:4:5 by thread" in res.stderr, res.stderr[-2000:]
    assert "macro.cu:5:10: not instrumented: hirace check of in[threadIdx.x] lies in an expansion of macro 'assert'" \
        in res.stderr


def test_a_file_name_cannot_inject_a_directive_and_values_the_runtime_cannot_hold_are_refused(tmp_path):
    odd = tmp_path / 'we"ird\n#error injected.cu'
    odd.write_text(RACY)
    res = _hirace("run", "--backend", "cpu", odd.name, cwd=tmp_path)
    assert res.returncode == 1 and "data race" in res.stderr and "injected" not in res.stderr.split("data race")[0], \
        res.stderr[-2000:]
    (tmp_path / "hirace.toml").write_text("max_reports = 4294967297\n")
    (tmp_path / "racy.cu").write_text(RACY)
    res = _hirace("run", "--backend", "cpu", "racy.cu", cwd=tmp_path)
    assert res.returncode == 2 and "'max_reports' must be between 1 and 2147483647" in res.stderr, res.stderr


@pytest.mark.parametrize("line, says", [("timeout = nan", "'timeout' in test 'n1' must be a finite number"),
                                        ("timeout = inf", "'timeout' in test 'n1' must be a finite number"),
                                        ("exit_code = 256", "'exit_code' must be from 0 to 255")])
def test_suite_values_a_run_cannot_have_are_refused_by_name(tmp_path, line, says):
    from cltestcheck.suite import load
    (tmp_path / "k.cu").write_text("int main() { return 0; }\n")
    (tmp_path / "cltc.toml").write_text(f'[build]\nsources = ["k.cu"]\n\n[[test]]\nname = "n1"\n{line}\n')
    with pytest.raises(UserError) as err:
        load(tmp_path)
    assert says in err.value.message and "cltc.toml" in err.value.message, err.value.message
