from instrument.errors import ParseError
from instrument.frontend.parse import parse_file

import pytest


def test_parses_cuda_with_host_headers(cuda_dir):
    unit = parse_file(cuda_dir / "engine" / "mixed.cu")   # includes <cstdio> and <vector>
    assert unit.main.endswith("mixed.cu")
    assert unit.files[unit.main].tokens, "token index built"


def test_syntax_error_names_file_line_column(cuda_dir):
    with pytest.raises(ParseError) as exc:
        parse_file(cuda_dir / "engine" / "syntax_error.cu")
    msg = str(exc.value)
    assert "syntax_error.cu:2:22: error: expected ';'" in msg
    assert "\n" not in msg


def test_missing_file(tmp_path):
    with pytest.raises(ParseError, match="no such file"):
        parse_file(tmp_path / "nope.cu")


def test_syntax_error_cli_is_one_line_exit_2(run_cli, cuda_dir):
    r = run_cli("instrument.frontend.inspect", cuda_dir / "engine" / "syntax_error.cu")
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "syntax_error.cu:2:22" in lines[0], r.stderr


def test_macro_expansions_recorded(cuda_dir):
    unit = parse_file(cuda_dir / "engine" / "macros.cu")
    names = [m.name for m in unit.macro_expansions[unit.main]]
    assert "AT" in names and "N" in names


def test_a_unit_read_as_the_device_pass_of_an_architecture(tmp_path):
    """parse_file(device_arch=N): as nvcc's device pass for sm_N reads it (__CUDA_ARCH__ N*10, newer
    architectures than libclang knows too); launches there are still launches (clang's cudaConfigureCall)."""
    from instrument.frontend.query import query
    src = tmp_path / "a.cu"
    src.write_text("#if __CUDA_ARCH__ >= 1000\n__device__ int ten;\n#elif __CUDA_ARCH__ >= 700\n__device__ int seven;\n"
                   "#endif\n__global__ void k(int *a) { a[0] = 1; }\nint main() { k<<<1, 1>>>(nullptr); return 0; }\n")
    names = {}
    for arch in (0, 70, 100):
        unit = parse_file(src, device_arch=arch)
        prog = query(unit)
        names[arch] = sorted(g.name for g in prog.globals)
        assert unit.device_arch == arch and [ls.kernel for ls in prog.launches] == ["k"]
    assert names == {0: [], 70: ["seven"], 100: ["ten"]}
