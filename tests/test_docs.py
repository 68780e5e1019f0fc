"""The documentation as a user meets it: every configuration example (a ```toml block of README.md or
docs/*.md: a hirace.toml, a cltc.toml suite, cltc's option tables, a pyproject.toml's [tool.cltc] /
[tool.hirace]) is read by the loaders the tools use, so an example that names a key, an operator or a
value the tools refuse (the `operators = ["relop", "arith"]` of issue 48) fails here, not in a user's
CI; every page is in both tables of pages; every relative link leads to a file and heading there."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from conftest import ROOT

from cltestcheck import config as cltc_config, suite as cltc_suite
from hirace import config as hirace_config

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _examples() -> list[tuple[str, str]]:
    out = []
    for f in DOCS:
        text = f.read_text()
        for m in re.finditer(r"^```toml\n(.*?)^```", text, re.S | re.M):
            out.append((f"{f.relative_to(ROOT)}:{text[:m.start()].count(chr(10)) + 1}", m.group(1)))
    return out


EXAMPLES = _examples()


def _kind(data: dict) -> str:
    if "tool" in data:
        return "pyproject.toml"
    if "build" in data or "test" in data or set(data) & set(cltc_config.COMMANDS):
        return "cltc.toml"
    return "hirace.toml"


def _make_named_files(suite: dict, root) -> None:
    """The files a suite example names (its sources, include directories, inputs and expected outputs), so
    that the loader, which checks that they exist, reads the example itself."""
    build = suite.get("build", {})
    for d in build.get("include", []):
        (root / d).mkdir(parents=True, exist_ok=True)
    names = list(build.get("sources", []))
    for t in suite.get("test", []):
        names += [*t.get("files", []), *(t[k] for k in ("stdin_file", "stdout_file") if k in t),
                  *t.get("output_files", {}).values()]
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("\n")


def test_the_docs_show_each_kind_of_file():
    assert {_kind(tomllib.loads(body)) for _, body in EXAMPLES} == {"pyproject.toml", "cltc.toml", "hirace.toml"}


@pytest.mark.parametrize("body", [b for _, b in EXAMPLES], ids=[w for w, _ in EXAMPLES])
def test_every_configuration_example_is_read_by_the_tools_loaders(body, tmp_path):
    data = tomllib.loads(body)
    kind = _kind(data)
    path = tmp_path / kind
    path.write_text(body)
    if kind == "hirace.toml" or "hirace" in data.get("tool", {}):
        hirace_config.load(path)
    if kind == "cltc.toml" or "cltc" in data.get("tool", {}):
        for command in cltc_config.COMMANDS:   # (each command checks every command's table)
            cltc_config.defaults(command, path)
    if kind == "cltc.toml" and ("build" in data or "test" in data):
        _make_named_files(data, tmp_path)
        cltc_suite.load(tmp_path)


def test_a_wrong_example_would_fail(tmp_path):
    """What the test above relies on: the loaders refuse an operator, a key or a value they do not know."""
    from instrument.errors import UserError
    bad = tmp_path / "pyproject.toml"
    bad.write_text('[tool.cltc.mutate]\noperators = ["relop", "arith"]\n')
    with pytest.raises(UserError, match=r"'operators' must be a list of mutation operators .*not relop, arith"):
        cltc_config.defaults("coverage", bad)
    bad = tmp_path / "hirace.toml"
    bad.write_text("granularity = 3\n")
    with pytest.raises(UserError, match="'granularity' must be 1, 2, 4 or 8"):
        hirace_config.load(bad)


# ---------------------------------------------------------------- pages and links

PAGES = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", ROOT / "CHANGELOG.md", *DOCS[1:]]


def _text(page) -> str:
    """A page without its code blocks (a link or heading there is an example)."""
    return re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M)


def _anchors(page) -> set[str]:
    """Its headings as GitHub makes their anchors: lower case, punctuation but - and _ dropped, spaces as -."""
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"^#+ (.*)$", _text(page), re.M)}


def test_every_page_is_in_both_tables_of_pages():
    pages = {p.name for p in (ROOT / "docs").glob("*.md") if p.name != "README.md"} | {"ARCHITECTURE.md", "CHANGELOG.md"}
    for index in (ROOT / "README.md", ROOT / "docs" / "README.md"):
        linked = {Path(t.partition("#")[0]).name for t in re.findall(r"^\| \[[^]]*\]\(([^)]+)\)", index.read_text(), re.M)}
        assert pages <= linked, (index.name, sorted(pages - linked))


@pytest.mark.parametrize("page", PAGES, ids=[p.name if p.parent == ROOT else f"docs/{p.name}" for p in PAGES])
def test_every_relative_link_leads_to_a_file_and_its_heading(page):
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", _text(page)):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, fragment = target.partition("#")
        dest = (page.parent / path) if path else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif fragment and dest.suffix == ".md" and fragment not in _anchors(dest):
            broken.append(f"{target}: no such heading")
    assert broken == []
