"""Compiler command lines as a launcher receives them (instrument/compile/compile_line.py)."""
from instrument.compile import compile_line

CMAKE_NVCC = ("/usr/local/bin/nvcc -forward-unknown-to-host-compiler --generate-code=arch=compute_75,code=[compute_75,"
              "sm_75] -DSCALE=3 -I/p/include -isystem /usr/local/cuda/include -std=c++17 --extended-lambda -MD -MT "
              "CMakeFiles/v.dir/a.cu.o -MF CMakeFiles/v.dir/a.cu.o.d -x cu -c /p/lib/a.cu -o CMakeFiles/v.dir/a.cu.o")


def test_a_cmake_nvcc_line():
    line = compile_line.parse(CMAKE_NVCC.split())
    assert line.nvcc and line.compile_only and not line.not_a_build
    assert line.output == "CMakeFiles/v.dir/a.cu.o"
    assert [(i.path, i.language) for i in line.inputs()] == [("/p/lib/a.cu", "cuda")]
    assert line.include_dirs() == ["/p/include"] and line.defines() == ["SCALE=3"]
    assert line.parse_extra() == ["-isystem", "/usr/local/cuda/include", "-std=c++17"]
    assert line.parse_extra(skip_dirs=["/usr/local/cuda/include"]) == ["-std=c++17"]


def test_the_host_compilers_line_drops_what_only_nvcc_understands():
    line = compile_line.parse(CMAKE_NVCC.split())
    host = line.host_argv(toolkit_dirs=["/usr/local/cuda/include"])
    assert host == ["-DSCALE=3", "-I/p/include", "-std=c++17", "-MD", "-MT", "CMakeFiles/v.dir/a.cu.o", "-MF",
                    "CMakeFiles/v.dir/a.cu.o.d", "-c", "/p/lib/a.cu", "-o", "CMakeFiles/v.dir/a.cu.o"]


def test_nvcc_spellings_become_the_host_compilers():
    line = compile_line.parse(["nvcc", "--output-file=x.o", "--include-path", "inc", "-Xcompiler", "-fPIC,-Wall",
                               "-Xcompiler=-O1", "-Xlinker", "-rpath=/l", "-arch=sm_90", "-gencode", "arch=compute_90,code=sm_90",
                               "-rdc=true", "-dc", "k.cu", "-lcudart", "-lm", "/usr/lib/libcudart_static.a", "-maxrregcount", "32"])
    assert line.compile_only and line.output == "x.o"
    assert line.host_argv() == ["-o", "x.o", "-I", "inc", "-fPIC", "-Wall", "-O1", "-Wl,-rpath=/l", "-c", "k.cu", "-lm"]


def test_inputs_by_suffix_and_by_x():
    line = compile_line.parse(["nvcc", "a.cu", "m.cpp", "h.c", "o.o", "libx.a", "-x", "cu", "k.cpp", "-x", "none",
                               "z.cc", "-o", "app"])
    assert [(i.path, i.language) for i in line.inputs()] == [
        ("a.cu", "cuda"), ("m.cpp", "c++"), ("h.c", "c"), ("o.o", "object"), ("libx.a", "object"), ("k.cpp", "cuda"),
        ("z.cc", "c++")]
    assert not line.compile_only


def test_what_is_not_a_build():
    for args in (["--version"], ["-E", "a.cu"], ["-M", "a.cu"], ["-ptx", "a.cu"], ["-dryrun", "a.cu"]):
        assert compile_line.parse(["nvcc", *args]).not_a_build, args
    assert compile_line.parse(["nvcc", "-dlink", "a.o", "-o", "d.o"]).device_link
    assert compile_line.parse(["nvcc", "-lib", "a.o", "-o", "l.a"]).makes_library


def test_gcc_lines():
    line = compile_line.parse(["/usr/bin/c++", "-DX", "-Iinc", "-O2", "-c", "m.cpp", "-o", "m.o"])
    assert not line.nvcc and line.compile_only
    assert line.argv({4: ["new.cpp"]}) == ["-DX", "-Iinc", "-O2", "-c", "new.cpp", "-o", "m.o"]


def test_arguments_in_files_are_read(tmp_path):
    (tmp_path / "inc.rsp").write_text('-I"/p/with space" -DA=1\n')
    (tmp_path / "more.rsp").write_text("-isystem /s\n")
    line = compile_line.parse(["nvcc", "--options-file", str(tmp_path / "inc.rsp"), f"@{tmp_path / 'more.rsp'}",
                               "-c", "a.cu", "--options-file", str(tmp_path / "missing.rsp")])
    assert line.include_dirs() == ["/p/with space"] and line.defines() == ["A=1"]
    assert line.parse_extra() == ["-isystem", "/s"]
    assert line.argv()[-2:] == ["--options-file", str(tmp_path / "missing.rsp")]


def test_attached_values_verbose_and_options_of_the_other_compiler():
    line = compile_line.parse(["g++", "-MMD", "-MFdeps/m.d", "-MTm.o", "-isystem/s", "-time", "-c", "m.cpp", "-o", "m.o"])
    assert [(i.name, i.value) for i in line.items if i.name in ("-MF", "-MT", "-isystem")] == [
        ("-MF", "deps/m.d"), ("-MT", "m.o"), ("-isystem", "/s")]
    assert line.compile_only   # (-time is a flag to gcc, not nvcc's option with a value)
    assert not compile_line.parse(["nvcc", "-v", "-c", "a.cu", "-o", "a.o"]).not_a_build
    werror = compile_line.parse(["nvcc", "-Werror", "all-warnings", "-c", "a.cu"])
    assert [i.path for i in werror.inputs()] == ["a.cu"] and werror.host_argv() == ["-c", "a.cu"]
