"""indigo-bench report: a sweep's rows as HiRace's Table II, a Figure 5 style slowdown plot,
and breakdowns per pattern and per tag. Everything is rendered first, then written.

Outcomes per row, against the ground truth of the code's name:
  found        racy code, the tool reported a race
  missed       racy code, the tool reported none
  false alarm  race-free code, the tool reported a race
  quiet        race-free code, no race reported (the right answer)
  error        the tool could not finish (build, crash, timeout): counted apart, never as found
"""
from __future__ import annotations

import io
import json
from pathlib import Path

from instrument.errors import UserError
from instrument.output import atomic_write_bytes, atomic_write_text

from .inputs import read_regular
from .results import frame, load
from .sweep import META
from .tools import Verdict

TOOL_ORDER = ("hirace", "racecheck", "sequential")
CONFIG = ["backend", "tpb", "blocks"]


def outcome(label: str, verdict: str) -> str:
    if verdict not in (Verdict.RACE, Verdict.NO_RACE):
        return "error"
    if label == "racy":
        return "found" if verdict == Verdict.RACE else "missed"
    return "false alarm" if verdict == Verdict.RACE else "quiet"


def _counts(df, keys: list[str]):
    """Codes (racy, race-free) and outcome counts per group of `keys`."""
    import pandas as pd
    cols = ["found", "missed", "false alarm", "quiet", "error"]
    if df.empty:
        return pd.DataFrame(columns=keys + ["racy", "race_free"] + cols)
    t = pd.crosstab([df[k] for k in keys], df["outcome"])
    for c in cols:
        if c not in t.columns:
            t[c] = 0
    labels = df.assign(racy=df["label"].eq("racy").astype(int),
                       race_free=df["label"].ne("racy").astype(int)).groupby(keys)[["racy", "race_free"]].sum()
    return labels.join(t[cols]).reset_index()


def _tool_key(t: str) -> tuple:
    return (TOOL_ORDER.index(t) if t in TOOL_ORDER else len(TOOL_ORDER), t)


def table2(df):
    """Per configuration, graph and tool; plus 'all graphs' totals."""
    import pandas as pd
    per_graph = _counts(df, CONFIG + ["graph", "tool"])
    totals = _counts(df, CONFIG + ["tool"])
    totals.insert(len(CONFIG), "graph", "all graphs")
    out = pd.concat([per_graph, totals], ignore_index=True)
    out = out.rename(columns={"false alarm": "false_alarms"})
    out["_g"] = out["graph"].eq("all graphs")
    out["_t"] = out["tool"].map(lambda t: _tool_key(t))
    out = out.sort_values(CONFIG + ["_g", "graph", "_t"]).drop(columns=["_g", "_t"])
    return out.reset_index(drop=True)


def slowdowns(df):
    """Tool wall time over the plain (sequential) run's, per code, graph and configuration."""
    import pandas as pd
    ok = df[df["verdict"].isin([Verdict.RACE.value, Verdict.NO_RACE.value])]
    base = ok[ok["tool"] == "sequential"][CONFIG + ["code", "graph", "wall_s"]].rename(columns={"wall_s": "plain_s"})
    tools = ok[ok["tool"] != "sequential"][CONFIG + ["code", "pattern", "graph", "tool", "wall_s"]]
    m = tools.merge(base, on=CONFIG + ["code", "graph"])
    m = m[m["plain_s"] > 0]
    m = m.rename(columns={"wall_s": "tool_s"})
    m["slowdown"] = m["tool_s"] / m["plain_s"]
    if m.empty:
        return pd.DataFrame(columns=CONFIG + ["code", "pattern", "graph", "tool", "plain_s", "tool_s", "slowdown"])
    return m[CONFIG + ["code", "pattern", "graph", "tool", "plain_s", "tool_s", "slowdown"]].sort_values(
        CONFIG + ["tool", "pattern", "code", "graph"]).reset_index(drop=True)


def breakdown(df):
    """Outcomes per tool and pattern, and per tool and tag (a code counts under each of its tags)."""
    import pandas as pd
    by_pattern = _counts(df, ["tool", "pattern"]).rename(columns={"pattern": "group"})
    by_pattern.insert(1, "by", "pattern")
    rows = []
    for _, r in df.iterrows():
        for tag in (r["tags"].split("+") if r["tags"] else ["(no tag)"]):
            rows.append({**r.to_dict(), "tag": tag})
    tagged = pd.DataFrame(rows) if rows else df.assign(tag=[])
    by_tag = _counts(tagged, ["tool", "tag"]).rename(columns={"tag": "group"})
    by_tag.insert(1, "by", "tag")
    out = pd.concat([by_pattern, by_tag], ignore_index=True).rename(columns={"false alarm": "false_alarms"})
    out["_t"] = out["tool"].map(_tool_key)
    return out.sort_values(["_t", "by", "group"]).drop(columns="_t").reset_index(drop=True)


def _plot(sd, title: str) -> bytes:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    codes = sorted(sd[["pattern", "code"]].drop_duplicates().itertuples(index=False))
    xpos = {c.code: i for i, c in enumerate(codes)}
    graphs = sorted(sd["graph"].unique())
    markers = "os^Dv<>p*hX"
    colors = {"hirace": "tab:blue", "racecheck": "tab:red"}
    fig, ax = plt.subplots(figsize=(max(6.0, 0.35 * len(codes) + 2), 4.5))
    for tool in sorted(sd["tool"].unique(), key=_tool_key):
        for gi, g in enumerate(graphs):
            sub = sd[(sd["tool"] == tool) & (sd["graph"] == g)]
            ax.scatter([xpos[c] for c in sub["code"]], sub["slowdown"], s=18, alpha=0.8,
                       marker=markers[gi % len(markers)], color=colors.get(tool, None),
                       label=f"{tool}, {g}")
        med = sd[sd["tool"] == tool]["slowdown"].median()
        ax.axhline(med, color=colors.get(tool, "gray"), linestyle="--", linewidth=1,
                   label=f"{tool} median {med:.2f}x")
    ax.set_yscale("log")
    from matplotlib.ticker import FuncFormatter
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}x"))
    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}x" if str(f"{v:g}")[0] in "235" else ""))
    ax.set_xticks(range(len(codes)))
    ax.set_xticklabels([c.code for c in codes], rotation=90, fontsize=6)
    ax.set_ylabel("tool time / plain time (log)")
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", axis="y", alpha=0.3)
    ax.legend(fontsize=6, ncol=2, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=130, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _text_table(t2, sd, meta: dict) -> str:
    lines = []
    for cfg, part in t2.groupby(CONFIG, sort=True):
        backend, tpb, blocks = cfg
        tools = sorted(part["tool"].unique(), key=_tool_key)
        lines.append(f"Table II: races found / missed / false alarms ({backend} backend, {tpb} threads per "
                     f"block, {blocks} blocks)")
        if meta.get("device"):
            lines.append(f"device: {meta['device']}")
        has_err = part["error"].sum() > 0
        head = f"{'graph':<28} {'racy':>5} {'free':>5}"
        for t in tools:
            head += f" | {t:^{22 if has_err else 17}}"
        lines.append(head)
        sub = f"{'':<40}"
        for _ in tools:
            sub += " | found miss false" + (" err" if has_err else "")
        lines.append(sub)
        for graph, g in part.groupby("graph", sort=False):
            first = g.iloc[0]
            row = f"{graph:<28} {int(first['racy']):>5} {int(first['race_free']):>5}"
            for t in tools:
                r = g[g["tool"] == t]
                if r.empty:
                    row += " | " + " " * (22 if has_err else 17)
                    continue
                r = r.iloc[0]
                row += f" | {int(r['found']):>5} {int(r['missed']):>4} {int(r['false_alarms']):>5}"
                if has_err:
                    row += f" {int(r['error']):>3}"
            lines.append(row)
        s = sd[(sd["backend"] == backend) & (sd["tpb"] == tpb) & (sd["blocks"] == blocks)]
        for t in sorted(s["tool"].unique(), key=_tool_key):
            v = s[s["tool"] == t]["slowdown"]
            lines.append(f"slowdown of {t} over the plain run: median {v.median():.2f}x, "
                         f"min {v.min():.2f}x, max {v.max():.2f}x ({len(v)} code x graph pairs)")
        lines.append("")
    for note in meta.get("notes", []):
        lines.append(f"note: {note}")
    return "\n".join(lines).rstrip() + "\n"


def _tag_table(tags) -> str:
    """Per tag and tool: racy codes found (of racy), false alarms (of race-free), errors."""
    tools = sorted(tags["tool"].unique(), key=_tool_key)
    lines = ["", "per tag: found/racy, false alarms/race-free, errors"]
    lines.append(f"{'tag':<16}" + "".join(f" | {t:^22}" for t in tools))
    for group in sorted(tags["group"].unique()):
        row = f"{group:<16}"
        for t in tools:
            r = tags[(tags["tool"] == t) & (tags["group"] == group)]
            if r.empty:
                row += " | " + " " * 22
                continue
            r = r.iloc[0]
            found = f"{int(r['found'])}/{int(r['racy'])}" if r["racy"] else "-"
            fa = f"{int(r['false_alarms'])}/{int(r['race_free'])}" if r["race_free"] else "-"
            row += f" | {found:>7} {fa:>7} {int(r['error']):>6}"
        lines.append(row)
    return "\n".join(lines) + "\n"


def write(out_dir: Path, plot: bool = True) -> tuple[str, str]:
    """Write the tables (and the plot) into `out_dir`: (the tables' text, the lines saying where the files
    were written)."""
    out_dir = Path(out_dir)
    rows = load(out_dir)
    if not rows:
        raise UserError(f"{out_dir}: no sweep results here (results.csv or results.parquet)",
                        hint="run `indigo-bench sweep ... --out DIR` first")
    meta_path = out_dir / META
    meta = json.loads(read_regular(meta_path, "sweep's settings file")) if meta_path.exists() else {}
    df = frame(rows)
    df["outcome"] = [outcome(lbl, v) for lbl, v in zip(df["label"], df["verdict"])]
    t2 = table2(df)
    sd = slowdowns(df)
    bd = breakdown(df)
    text = _text_table(t2, sd, meta)
    text += _tag_table(bd[bd["by"] == "tag"])
    files = {"table2.csv": t2.to_csv(index=False), "breakdown.csv": bd.to_csv(index=False),
             "slowdown.csv": sd.to_csv(index=False), "report.txt": text}
    png = None
    if plot and not sd.empty:
        cfgs = sd[CONFIG].drop_duplicates()
        title = "Slowdown over the plain run, one point per code and graph" + (
            "" if len(cfgs) > 1 else f" ({cfgs.iloc[0]['backend']}, {cfgs.iloc[0]['tpb']}x{cfgs.iloc[0]['blocks']})")
        png = _plot(sd, title)
    for name, content in files.items():
        atomic_write_text(out_dir / name, content)
    if png is not None:
        atomic_write_bytes(out_dir / "slowdown.png", png)
    written = f"\nslowdown plot: {out_dir / 'slowdown.png'}\n" if png is not None else ""
    written += f"tables: {out_dir / 'table2.csv'}, {out_dir / 'breakdown.csv'}, {out_dir / 'slowdown.csv'}\n"
    return text, written
