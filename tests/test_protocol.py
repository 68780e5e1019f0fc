"""One protocol between the Python tools and the C++ runtimes: instrument/protocol.py is its
only spelling; the runtimes' header is generated from it and nothing repeats a name by hand."""
import re

from conftest import ROOT
from instrument import genprotocol, protocol


def test_the_generated_protocol_header_is_current():
    assert genprotocol.main(["--check"]) == 0, "run `python -m instrument.genprotocol`"


def _sources(*globs):
    skip = ("protocol.py", "protocol.h", "genprotocol.py")
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
    header = (ROOT / "runtime/include/cudacommon/protocol.h").read_text()
    for op, (code, name) in protocol.MUTATION_OPS.items():
        assert f"  {name} = {code}," in header
