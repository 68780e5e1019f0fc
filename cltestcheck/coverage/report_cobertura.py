"""Cobertura XML (coverage-04.dtd layout): one class per source file, one method per
kernel or device function; lines are the measured lines, branches their arms and loop cases."""
from __future__ import annotations

import os
import time
from collections import defaultdict
from xml.etree import ElementTree as ET

from .results import CoverageResult, branch_points, line_hits


def _rate(a: int, b: int) -> str:
    return f"{(a / b) if b else 1.0:.4f}"


def render(res: CoverageResult) -> str:
    hits = line_hits(res)
    branches = defaultdict(lambda: [0, 0])
    for file, line, arms in branch_points(res):
        slot = branches[(file, line)]
        slot[0] += sum(n > 0 for _, n in arms)
        slot[1] += len(arms)
    files = sorted({f for f, _ in hits} | {f for f, _ in branches})
    # the root is the source; a file under it is named relative to it, others by their absolute path
    root_dir = str(res.report_paths().root)
    lv, lc = len(hits), sum(n > 0 for n in hits.values())
    bv, bc = sum(v[1] for v in branches.values()), sum(v[0] for v in branches.values())
    cov = ET.Element("coverage", {
        "line-rate": _rate(lc, lv), "branch-rate": _rate(bc, bv), "lines-covered": str(lc),
        "lines-valid": str(lv), "branches-covered": str(bc), "branches-valid": str(bv),
        "complexity": "0", "version": "cltc", "timestamp": str(int(time.time() * 1000))})
    ET.SubElement(ET.SubElement(cov, "sources"), "source").text = root_dir
    pkgs = ET.SubElement(cov, "packages")
    pkg = ET.SubElement(pkgs, "package", {"name": "kernels", "line-rate": _rate(lc, lv),
                                         "branch-rate": _rate(bc, bv), "complexity": "0"})
    classes = ET.SubElement(pkg, "classes")

    def line_el(parent, file, line):
        n = hits.get((file, line), 0)
        attrs = {"number": str(line), "hits": str(n), "branch": "false"}
        if (file, line) in branches:
            c, t = branches[(file, line)]
            attrs.update({"branch": "true", "condition-coverage": f"{round(100 * c / t)}% ({c}/{t})"})
        ET.SubElement(parent, "line", attrs)

    for file in files:
        flines = sorted(l for f, l in set(hits) | set(branches) if f == file)
        fl = [hits.get((file, l), 0) for l in flines]
        fb = [branches[(file, l)] for l in flines if (file, l) in branches]
        cls = ET.SubElement(classes, "class", {
            "name": os.path.basename(file), "filename": res.show(file),
            "line-rate": _rate(sum(n > 0 for n in fl), len(fl)),
            "branch-rate": _rate(sum(b[0] for b in fb), sum(b[1] for b in fb)), "complexity": "0"})
        methods = ET.SubElement(cls, "methods")
        funcs = sorted((f for f in res.table.functions if f.file == file), key=lambda f: f.line)
        for i, f in enumerate(funcs):
            end = funcs[i + 1].line if i + 1 < len(funcs) else 1 << 30
            mine = [l for l in flines if f.line <= l < end]
            mb = [branches[(file, l)] for l in mine if (file, l) in branches]
            m = ET.SubElement(methods, "method", {
                "name": f.name, "signature": "", "line-rate": _rate(sum(hits.get((file, l), 0) > 0 for l in mine),
                                                                    len(mine)),
                "branch-rate": _rate(sum(b[0] for b in mb), sum(b[1] for b in mb)), "complexity": "0"})
            ml = ET.SubElement(m, "lines")
            for l in mine:
                line_el(ml, file, l)
        cl = ET.SubElement(cls, "lines")
        for l in flines:
            line_el(cl, file, l)
    ET.indent(cov)
    return ('<?xml version="1.0" ?>\n<!DOCTYPE coverage SYSTEM '
            '"http://cobertura.sourceforge.net/xml/coverage-04.dtd">\n' + ET.tostring(cov, encoding="unicode") + "\n")
