"""Command lines: help, exit codes, the plain runner's contract, installation."""
import subprocess
import venv

import pytest

from conftest import CUDA, ROOT


@pytest.mark.parametrize("module", ["hirace.cli", "cltestcheck.cli", "indigo_bench.cli"])
def test_help(run_cli, module):
    r = run_cli(module, "--help")
    assert r.returncode == 0 and "usage:" in r.stdout


def test_plain_runner_passes_output_and_exit_status(run_cli, tmp_path):
    src = tmp_path / "exit3.cu"
    src.write_text('#include <cstdio>\n__global__ void k(int *a) { a[threadIdx.x] = 1; }\n'
                   'int main(int argc, char **argv) { int *d; cudaMalloc(&d, 64);\n'
                   '  k<<<1, 16>>>(d); printf("args %d %s\\n", argc, argv[1]);\n'
                   '  fprintf(stderr, "to stderr\\n"); return 3; }\n')
    r = run_cli("instrument.run", "--backend", "cpu", src, "--", "hello")
    assert r.returncode == 3
    assert r.stdout == "args 2 hello\n"
    assert r.stderr == "to stderr\n"


def test_auto_backend_says_what_it_picked(run_cli):
    r = run_cli("instrument.run", CUDA / "corpus" / "vector_add.cu")
    assert r.returncode == 0
    assert r.stderr.startswith("[backend: ")


def test_build_failure_is_exit_2_with_the_compiler_message(run_cli, tmp_path):
    src = tmp_path / "bad.cu"
    # parses (it is valid C++) but does not link: the function is never defined
    src.write_text("void never_defined();\nint main() { never_defined(); }\n")
    r = run_cli("instrument.run", "--backend", "cpu", src)
    assert r.returncode == 2
    assert "build failed (cpu backend)" in r.stderr and "never_defined" in r.stderr


def test_crash_is_exit_2(run_cli, tmp_path):
    src = tmp_path / "crash.cu"
    src.write_text("#include <cstdlib>\nint main() { abort(); }\n")
    r = run_cli("instrument.run", "--backend", "cpu", src)
    assert r.returncode == 2 and "crashed with SIGABRT" in r.stderr


def test_gpu_backend_unavailable_is_a_clear_error(run_cli):
    from instrument.compile.toolchain import gpu_usable
    if gpu_usable():
        pytest.skip("this machine has a usable GPU, so the gpu backend is available")
    r = run_cli("instrument.run", "--backend", "gpu", CUDA / "corpus" / "vector_add.cu")
    assert r.returncode == 2 and "the gpu backend is not usable here" in r.stderr


def test_installed_package_finds_its_headers(tmp_path):
    """pip install . into a fresh venv (reusing this one's packages) gives working commands
    that find the runtime headers without the source tree."""
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    r = subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", str(ROOT)],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    commands = {"hirace": ["run", "instrument", "verify-fsm", "selftest"], "cltc": ["coverage", "mutate", "amplify", "search"],
                "indigo-bench": ["sweep", "report", "graphs"]}
    for cmd, subs in commands.items():   # every command's help, also where libclang is missing
        for sub in [[], *([s] for s in subs)]:
            r = subprocess.run([str(env_dir / "bin" / cmd), *sub, "--help"], capture_output=True, text=True,
                               cwd=tmp_path)
            assert r.returncode == 0, (cmd, sub, r.stderr)
    code = ("import runtime, instrument; p = runtime.include_dir(); "
            "print(p); assert (p / 'cudaemu' / 'cudaemu.h').is_file(); "
            "assert (p / 'cudaparse' / 'cuda_decls.h').is_file(); print(instrument.__file__)")
    r = subprocess.run([str(py), "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    inc, pkg = r.stdout.split()
    assert "site-packages" in inc and "site-packages" in pkg and str(ROOT) not in inc


def test_a_plain_install_into_an_empty_venv_runs_the_commands_from_another_directory(tmp_path):
    """`pip install .` (no test extra: no pytest; no report extra: no pandas, no matplotlib) into an
    empty venv, then the README's commands run from a directory outside the project; a pytest suite
    says that pytest is missing, indigo-bench report which extra to install."""
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=False, with_pip=True).create(env_dir)
    r = subprocess.run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q", str(ROOT)],
                       capture_output=True, text=True, cwd=tmp_path, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    work = tmp_path / "elsewhere"
    work.mkdir()

    def cmd(*args):
        return subprocess.run([str(env_dir / "bin" / args[0]), *map(str, args[1:])], capture_output=True,
                              text=True, cwd=work, timeout=600)
    suite = ROOT / "examples" / "cltc_suite"
    r = cmd("cltc", "coverage", "--suite", suite, "--lcov", work / "c.info")
    assert r.returncode == 0, r.stderr
    assert "Tests:" in r.stdout and (work / "c.info").read_text().startswith("TN:")
    # (two operators of the eleven: the schemata built and the mutants judged from the installed
    # package, without judging all 72 mutants of the suite, 17 s of the test)
    r = cmd("cltc", "mutate", "--suite", suite, "--runs", "1", "-q", "--operators", "relational,barrier")
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr and "score" in r.stdout.lower(), r.stderr
    r = cmd("hirace", "run", "--backend", "cpu", ROOT / "examples" / "reduce_race.cu")
    assert r.returncode == 1 and "SUMMARY: hirace: 2 data races" in r.stderr, r.stderr
    r = cmd("cltc", "coverage", "--suite", ROOT / "examples" / "pytest_kernels")
    assert r.returncode == 2 and "pytest is not installed" in r.stderr and "Traceback" not in r.stderr
    r = cmd("indigo-bench", "report", "--out", work)   # (pandas and matplotlib: the report extra)
    assert r.returncode == 2 and "pip install 'cuda-correctness-toolkit[report]'" in r.stderr, r.stderr
    assert sorted(p.name for p in work.iterdir()) == ["c.info"]
