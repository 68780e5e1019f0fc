"""`hirace explain`: for every site, the check it gets and why; for every kernel, what the analyses
made of it. Reads what the planner decided (hirace/proofs: the site table's proof, condition and
why; each unit's fact table), nothing else: what it prints is what `hirace run` would build."""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

from instrument.errors import EXIT_OK
from instrument.files import Output
from instrument.output import atomic_write_text

from .proofs.proof import Rule
from .run_cmd import _common, sources_and_config

_ARGUMENT = {r.title: r.argument for r in Rule}


def setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or json")
    p.add_argument("-o", "--output", type=Path, default=None, help="write the explanation to this file")
    p.add_argument("--cpu", action="store_true", help="as the cpu backend builds it (lowered for g++)")
    _common(p, sources="*")


def run(a: argparse.Namespace, _extra) -> int:
    from . import runner
    cfg = sources_and_config(a, "explain", [Output("-o", a.output, "file")] if a.output is not None else [])
    with tempfile.TemporaryDirectory(prefix="hirace-explain-") as tmp:
        ins = runner.instrument(a.sources, Path(tmp) / "src", cfg, a.include, a.define, lower_cpu=a.cpu)
    data = explanation(ins.planner)
    text = json.dumps(data, indent=1) + "\n" if a.format == "json" else render_text(data)
    if a.output is not None:
        atomic_write_text(a.output, text)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def explanation(planner) -> dict:
    """The explanation as data: sites (with their check and why), kernels, and a summary."""
    sites = []
    for s in planner.sites:
        row = {"id": s.id, "file": s.file, "line": s.line, "column": s.column, "kind": s.kind, "text": s.text,
               "function": s.function, "check": "bounds" if s.proof else "whole", "proof": s.proof or None,
               "condition": s.condition or None, "why": _ARGUMENT.get(s.proof, "") if s.proof else s.why,
               "inside": s.inside or None}
        sites.append(row)
    kernels, off = [], []
    for facts in planner.facts:
        if facts.off:
            off.append(facts.off)
        for k in facts.prog.kernels:
            params = facts.params.get((k.body.file, k.body.start))   # (by its body: names repeat across namespaces)
            kernels.append({
                "name": k.name, "file": k.span.file, "line": k.span.line,
                "intervals": facts.off or facts.intervals_why.get(k.name) or "analysed",
                "parameters": facts.off or facts.params_why.get(k.name) or _params(params),
                "writes": facts.off or _writes(facts, k),
                "notes": facts.kernel_facts.notes.get(k.name, []),
                "quiet_version": _version(planner.quiet_versions.get((k.span.file, k.span.line, k.name))),
            })
    by_rule = Counter(s["proof"] for s in sites if s["proof"])
    return {"sites": sites, "kernels": _unique(kernels), "not_analysed": sorted(set(off)),
            "summary": {"sites": len(sites), "bounds_only": sum(by_rule.values()),
                        "whole": sum(1 for s in sites if s["check"] == "whole"), "by_proof": dict(sorted(by_rule.items()))}}


def _version(v: dict | None) -> dict:
    """Whether the kernel has a quiet version (hirace/proofs/quiet_version.py), or why not; which of its
    launches may run it, and why the others cannot."""
    if v is None:
        return {"has": False, "why": "not planned (not reached from the device program)", "launches": []}
    return {"has": not v["why"], "why": v["why"] or None,
            "launches": [{"file": f, "line": line, "may_run": not why, "why": why or None}
                         for f, line, why in v["launches"]]}


def _params(kp) -> str:
    if kp is None:
        return "analysed"
    names = lambda ps: ", ".join(kp.kernel.params[i] for i in ps)   # noqa: E731
    parts = [f"{what} {names(ps)}" for what, ps in (("read-only", kp.candidates),
                                                    ("own", tuple(o.position for o in kp.own)),
                                                    ("atomic", kp.atomic)) if ps]
    return "analysed: " + "; ".join(parts)


def _writes(facts, k) -> str:
    """Which buffers a launch of kernel k may write (hirace/proofs/readonly_params.py `writes`): the others
    keep no check state in that launch (hirace/host_buffer_state.h); or why every buffer is checked."""
    w = facts.writes.get((k.body.file, k.body.start))
    if w is None:
        why = facts.params_why.get(k.name) or "its writes are not known: see its notes"
        return f"every buffer checked in its launches ({why})"
    if not w.written:
        return "no buffer: its launches check none"
    names = ", ".join(k.params[i] for i in w.written)
    return f"only through {names}: its launches check only the buffers these point into"


def _unique(kernels: list[dict]) -> list[dict]:
    """One entry per kernel definition (a header several units include is analysed in each)."""
    seen, out = set(), []
    for k in kernels:
        if (k["file"], k["line"], k["name"]) not in seen:
            seen.add((k["file"], k["line"], k["name"]))
            out.append(k)
    return out


def _shown(path: str) -> str:
    """A path as the user would write it: relative to the current directory where it lies below it."""
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return path


def _render_version(v: dict, file: str) -> list[str]:
    if not v["has"]:
        return [f"  quiet version: none: {v['why']}"]
    where = lambda x: (f"{_shown(x['file'])}:" if x["file"] != file else "") + str(x["line"])   # noqa: E731
    may = [where(x) for x in v["launches"] if x["may_run"]]
    out = ["  quiet version: yes" + (f", launched where its test holds from line{'s' if len(may) > 1 else ''} {', '.join(may)}" if may else
                                     ", but no launch may run it")]
    out += [f"  launch at line {where(x)} runs the kernel: {x['why']}" for x in v["launches"] if not x["may_run"]]
    return out


def render_text(data: dict) -> str:
    """Per function (kernels with what the analyses made of them), each site on a line: where, what,
    its check; each rule's argument once, at the end."""
    out = [f"not analysed: {reason}" for reason in data["not_analysed"]]
    kernels = {(k["file"], k["name"]): k for k in data["kernels"]}
    groups: dict[tuple[str, str], list[dict]] = {}
    for s in data["sites"]:
        groups.setdefault((s["file"], s["function"]), []).append(s)
    for (file, k) in [(k["file"], k["name"]) for k in data["kernels"]]:
        groups.setdefault((file, k), [])
    for (file, function), sites in sorted(groups.items(), key=lambda g: (g[0][0], min(
            [s["line"] for s in g[1]] + [kernels[g[0]]["line"] if g[0] in kernels else 0]))):
        k = kernels.get((file, function))
        if k is not None:
            out.append(f"{_shown(file)}:{k['line']}: kernel {function}")
            out.append(f"  barrier intervals: {k['intervals']}")
            out.append(f"  parameters: {k['parameters']}")
            out.append(f"  writes: {k['writes']}")
            out += [f"  note: {n}" for n in k["notes"]]
            out += _render_version(k["quiet_version"], file)
        else:
            out.append(f"{_shown(file)}: {function}")
        for s in sorted(sites, key=lambda s: (s["line"], s["column"])):
            if s["check"] == "bounds":
                how = f"bounds only: {s['proof']}" + (f", where {s['condition']}" if s["condition"] else "")
                if s.get("inside"):
                    how += "; in bounds" + ("" if s["inside"] == "(true)" else f" where {s['inside']}")
            else:
                how = "checked whole" + (f": {s['why']}" if s["why"] else "")
            out.append(f"  {s['line']}:{s['column']}: {s['kind']} {s['text']}: {how}")
    sm = data["summary"]
    rules = ", ".join(f"{n} {r}" for r, n in sm["by_proof"].items())
    out.append(f"{sm['sites']} sites: {sm['bounds_only']} bounds only{' (' + rules + ')' if rules else ''}, "
               f"{sm['whole']} checked whole")
    for rule in sm["by_proof"]:
        out.append(f"  {rule}: {_ARGUMENT[rule]}")
    return "\n".join(out) + "\n"
