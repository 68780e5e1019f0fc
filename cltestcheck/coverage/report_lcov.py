"""lcov tracefile (.info): functions, branches (arms, loop cases, barriers) and measured lines,
so genhtml and coverage services show kernel coverage. Counts are numbers of tests, or with
--count-executions numbers of threads (executions). SF: names a file relative to the root (--root),
absolute outside it."""
from __future__ import annotations

from collections import defaultdict

from .results import CoverageResult, branch_points, line_hits


def render(res: CoverageResult, test_name: str = "cltc") -> str:
    files = sorted({f.file for f in res.table.functions})
    by_file = defaultdict(list)
    for file, line, arms in branch_points(res):
        by_file[file].append((line, arms))
    lines_by_file = defaultdict(list)
    for (file, line), n in line_hits(res).items():
        lines_by_file[file].append((line, n))
    out = []
    for file in sorted(set(files) | set(by_file) | set(lines_by_file)):
        out.append(f"TN:{test_name}")
        out.append(f"SF:{res.show(file)}")
        funcs = [f for f in res.table.functions if f.file == file]
        for f in funcs:
            out.append(f"FN:{f.line},{f.name}")
        for f in funcs:
            n = res.executed(f.flag) if res.executions else sum(f.flag in t.flags for t in res.tests)
            out.append(f"FNDA:{n},{f.name}")
        out.append(f"FNF:{len(funcs)}")
        out.append(f"FNH:{sum(any(f.flag in t.flags for t in res.tests) for f in funcs)}")
        brf = brh = 0
        for block, (line, arms) in enumerate(by_file[file]):
            for i, (_, taken) in enumerate(arms):
                out.append(f"BRDA:{line},{block},{i},{taken}")
                brf += 1
                brh += taken > 0
        out.append(f"BRF:{brf}")
        out.append(f"BRH:{brh}")
        for line, n in lines_by_file[file]:
            out.append(f"DA:{line},{n}")
        out.append(f"LF:{len(lines_by_file[file])}")
        out.append(f"LH:{sum(n > 0 for _, n in lines_by_file[file])}")
        out.append("end_of_record")
    return "\n".join(out) + "\n"
