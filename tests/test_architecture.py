"""The layout's rules that a reader relies on: no import cycle among the project's modules (imports
inside functions count too)."""
import ast
import sys

from conftest import ROOT

PACKAGES = ("instrument", "hirace", "cltestcheck", "selftest", "indigo_bench", "runtime")


def _modules() -> dict:
    mods = {}
    for pkg in PACKAGES:
        for p in (ROOT / pkg).rglob("*.py"):
            name = ".".join(p.relative_to(ROOT).with_suffix("").parts)
            mods[name.removesuffix(".__init__")] = p
    return mods


def _imports(name: str, path, mods: dict) -> set:
    """The project modules `name` imports anywhere in its text (`from pkg import mod` names mod)."""
    out = set()
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            subs = [f"{mod}.{a.name}" for a in node.names if f"{mod}.{a.name}" in mods]
            found = subs if len(subs) == len(node.names) else [mod, *subs]
        elif isinstance(node, ast.Import):
            found = [a.name for a in node.names]
        else:
            continue
        out |= {m for m in found if m in mods and m != name}
    return out


def _cycles(graph: dict) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in graph:
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return comps


def test_no_import_cycle_among_the_projects_modules():
    mods = _modules()
    graph = {name: _imports(name, path, mods) for name, path in mods.items()}
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# which package may import which: the engine knows no tool; a tool knows the engine, not another
# tool; the selftest checks every tool; hirace's command line offers `hirace selftest`
ALLOWED = {
    "runtime": set(),
    "instrument": {"runtime"},
    "hirace": {"instrument", "runtime"},
    "cltestcheck": {"instrument", "runtime"},
    "indigo_bench": {"instrument", "runtime", "hirace", "cltestcheck"},
    "selftest": {"instrument", "runtime", "hirace", "cltestcheck"},
}
EXCEPTIONS = {("hirace.cli", "selftest.command")}


def test_the_engine_knows_no_tool_and_no_tool_another():
    mods = _modules()
    wrong = [(name, dep) for name, path in mods.items() for dep in _imports(name, path, mods)
             if dep.split(".")[0] != name.split(".")[0] and dep.split(".")[0] not in ALLOWED[name.split(".")[0]]
             and (name, dep) not in EXCEPTIONS]
    assert wrong == []
    assert set(ALLOWED) == set(PACKAGES)


def test_the_engines_generated_code_names_no_tool():
    text = "\n".join(p.read_text() for p in (ROOT / "instrument").rglob("*.py"))
    assert "::cltc::" not in text and "::hirace::" not in text
