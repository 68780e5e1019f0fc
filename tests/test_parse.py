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
