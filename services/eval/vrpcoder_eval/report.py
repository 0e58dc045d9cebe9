"""Reports of a run: ``metrics.json``, ``report.md`` and a self-contained ``report.html``.

The HTML file embeds its plots as base64 PNGs (matplotlib, Agg backend) and carries no script or
external link, so it can be mailed, archived or opened offline. Three plots: Pass@1 per benchmark
with its bootstrap interval (DIFF+INJ beside it; the legend sits outside the axes, never on a bar),
the variant x family heat map of the items every check caught (INJ, the optimum check, DIFF where
the plan names the family, any later ``<check>:<family>``), with its blank cells explained, and the
outcomes of the items that did not pass. The tables say the same in numbers: families caught per
check, INJ probes per family, a row per failed item with its failed checks and their families, and
the label audit per source.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - the backend must be chosen first
from matplotlib.figure import Figure  # noqa: E402

from vrpcoder_eval.audit import AuditReport  # noqa: E402
from vrpcoder_eval.metrics import FEASIBLE_PROBE, Comparison, GroupMetrics, Rate, RunMetrics  # noqa: E402

HEATMAP_NOTE = (
    "Each cell: the share of the variant's items whose script built on which no check named the family "
    "(INJ probes, the optimum check, DIFF where the candidate's own plan breaks the family); the text is "
    "items caught / items built. A blank cell: the variant's exact model has no such rule, none of its items "
    "had a probe of it and no check named it there, so there was nothing to catch."
)

METRICS_FILE = "metrics.json"
MARKDOWN_FILE = "report.md"
HTML_FILE = "report.html"


def pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{100 * rate:.2f}"


def rate_text(r: Rate) -> str:
    if r.rate is None:
        return "n/a"
    return f"{pct(r.rate)} [{pct(r.low)}, {pct(r.high)}] ({r.passed}/{r.total})"


# ---- plots ---------------------------------------------------------------------------------------


def _png(fig: Figure) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


def plot_pass_by_benchmark(metrics: RunMetrics) -> str:
    groups = list(metrics.benchmarks)
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    names = [g.key.upper() for g in groups]
    xs = range(len(groups))
    for offset, attr, label in ((-0.18, "pass_at_1", "Pass@1 (DIFF)"), (0.18, "dual_pass", "DIFF + INJ")):
        rates = [getattr(g, attr) for g in groups]
        values = [100 * (r.rate or 0.0) for r in rates]
        lows = [100 * ((r.rate or 0.0) - (r.low or 0.0)) for r in rates]
        highs = [100 * ((r.high or 0.0) - (r.rate or 0.0)) for r in rates]
        ax.bar([x + offset for x in xs], values, width=0.36, label=label, yerr=[lows, highs], capsize=3)
    ax.set_xticks(list(xs), names)
    ax.set_ylim(0, 105)
    ax.set_ylabel("% of items")
    ax.set_title(f"{metrics.label}: Pass@1 per benchmark (95% bootstrap CI)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    return _png(fig)


def plot_family_heatmap(metrics: RunMetrics) -> str | None:
    variants = list(metrics.heatmap)
    families = sorted({f for cells in metrics.heatmap.values() for f in cells}, key=lambda f: (f == FEASIBLE_PROBE, f))
    if not variants or not families:
        return None
    grid = [[float("nan")] * len(families) for _ in variants]
    counts = [[""] * len(families) for _ in variants]
    for i, v in enumerate(variants):
        for family, cell in metrics.heatmap[v].items():
            j = families.index(family)
            grid[i][j] = 100 * (cell.rate if cell.rate is not None else 0.0)
            counts[i][j] = f"{cell.caught}/{cell.built}"
    fig, ax = plt.subplots(figsize=(1.1 * len(families) + 2.5, 0.42 * len(variants) + 1.6))
    image = ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(families)), families, rotation=35, ha="right", fontsize=8)
    ax.set_yticks(range(len(variants)), variants, fontsize=8)
    for i in range(len(variants)):
        for j in range(len(families)):
            if counts[i][j]:
                ax.text(j, i, counts[i][j], ha="center", va="center", fontsize=7)
    fig.colorbar(image, ax=ax, label="built items no check caught (%)")
    ax.set_title("Caught by any check: variant x constraint family (caught / built)")
    return _png(fig)


def plot_error_kinds(metrics: RunMetrics) -> str | None:
    if not metrics.error_kinds:
        return None
    kinds = list(metrics.error_kinds.items())
    fig, ax = plt.subplots(figsize=(6.5, 0.35 * len(kinds) + 1.2))
    ax.barh([k for k, _ in kinds][::-1], [v for _, v in kinds][::-1], color="#c0504d")
    ax.set_xlabel("items")
    ax.set_title("Why items did not pass")
    return _png(fig)


# ---- markdown -------------------------------------------------------------------------------------


def _group_rows(groups: Sequence[GroupMetrics]) -> list[str]:
    rows = ["| group | items | Pass@1 % [95% CI] | DIFF+INJ % | build % | INJ % |", "|---|---|---|---|---|---|"]
    for g in groups:
        rows.append(
            f"| {g.key} | {g.items} | {rate_text(g.pass_at_1)} | {pct(g.dual_pass.rate)} | {pct(g.build.rate)} | "
            f"{pct(g.inj.rate)} ({g.inj.passed}/{g.inj.total}) |"
        )
    return rows


def markdown(metrics: RunMetrics, comparison: Comparison | None = None, audit: AuditReport | None = None) -> str:
    lines = [f"# Evaluation report: {metrics.label}", ""]
    lines += [
        f"Scored items: {metrics.scored}; unscored (not the model's fault, retried on resume): {metrics.unscored}"
        + (f" ({', '.join(f'{k}: {v}' for k, v in metrics.unscored_reasons.items())})" if metrics.unscored_reasons else ""),
        "",
        "Pass@1 is the paper's criterion: the script builds, solves, and its optimum matches the reference "
        "(absolute tolerance). DIFF+INJ also requires every judged constraint-injection probe to be answered right.",
        "",
        "## Per benchmark",
        *_group_rows([metrics.overall, *metrics.benchmarks]),
        "",
    ]
    if metrics.audited:
        lines += ["## Pass@1 against audited labels (external items relabelled by the audit)",
                  "| benchmark | published labels | audited labels |", "|---|---|---|"]
        published = {g.key: g for g in metrics.benchmarks}
        for g in metrics.audited:
            lines.append(f"| {g.key} | {rate_text(published[g.key].pass_at_1)} | {rate_text(g.pass_at_1)} |")
        lines.append("")
    lines += ["## Per source", *_group_rows(metrics.sources), "", "## Per variant", *_group_rows(metrics.variants), ""]
    lines += _caught_lines(metrics)
    lines += [
        "",
        "## INJ probes per constraint family (items whose script built)",
        "| family | judged | passed % | false accepts | false rejects | errors | unjudgeable |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in metrics.families:
        lines.append(
            f"| {f.family} | {f.judged} | {pct(f.rate)} | {f.false_accepts} | {f.false_rejects} | {f.errors} | {f.unjudgeable} |"
        )
    lines += ["", "## Outcomes of the items that did not pass", "| outcome | items |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in metrics.error_kinds.items()] or ["| (none) | 0 |"]
    lines += ["", *_failure_lines(metrics)]
    if comparison is not None:
        lines += ["", *_comparison_lines(comparison)]
    if audit is not None:
        lines += ["", *audit.markdown_lines()]
    return "\n".join(lines) + "\n"


def _caught_lines(metrics: RunMetrics) -> list[str]:
    checks = sorted({c for f in metrics.caught for c in f.by_check})
    lines = ["## Constraint families caught (every check that names a family)",
             "Items on which a check named the family: INJ (a probe answered wrong), optimum (the candidate's own "
             "optimal plan breaks it), diff (a wrong objective whose plan breaks it), and any other check reported "
             "as check:family. An item caught by several checks counts once in 'items'.", ""]
    if not metrics.caught:
        return [*lines, "No check named a family."]
    lines += ["| family | items caught | " + " | ".join(checks) + " |", "|---|---|" + "---|" * len(checks)]
    for f in metrics.caught:
        lines.append(f"| {f.family} | {f.items} | " + " | ".join(str(f.by_check.get(c, 0)) for c in checks) + " |")
    return lines


def _failure_lines(metrics: RunMetrics) -> list[str]:
    lines = [f"## Failed checks per item ({len(metrics.failures)} items did not pass)"]
    if not metrics.failures:
        return lines
    lines += ["| item | benchmark | variant | outcome | failed checks | families |", "|---|---|---|---|---|---|"]
    for f in metrics.failures:
        lines.append(f"| {f.item_id} | {f.benchmark} | {f.variant or 'n/a'} | {f.outcome} | {', '.join(f.checks) or '-'} | "
                     f"{', '.join(f.families) or '-'} |")
    return lines


def _comparison_lines(c: Comparison) -> list[str]:
    lines = [f"## Comparison: {c.other} vs {c.base} ({c.common} common items)", "| benchmark | Pass@1 change (points) |", "|---|---|"]
    lines += [f"| {k} | {100 * v:+.2f} |" for k, v in c.pass_delta.items()]
    for title, flips in (("Gained (Pass@1)", c.gained), ("Lost (Pass@1)", c.lost),
                         ("Gained (DIFF+INJ)", c.dual_gained), ("Lost (DIFF+INJ)", c.dual_lost)):
        lines += ["", f"### {title}: {len(flips)}"]
        lines += [f"- {f.item_id}: {f.before} -> {f.after}" for f in flips[:200]]
    return lines


# ---- html ---------------------------------------------------------------------------------------


_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:0.9em}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}
th{background:#f0f0f0} img{max-width:100%;display:block;margin:1em 0} h1{font-size:1.5em}
figure{margin:0} figcaption{font-size:0.85em;color:#555;max-width:900px}
"""


def _markdown_table_to_html(block: list[str]) -> str:
    header = [html.escape(c.strip()) for c in block[0].strip("|").split("|")]
    body = [[html.escape(c.strip()) for c in row.strip("|").split("|")] for row in block[2:]]
    head = "".join(f"<th>{c}</th>" for c in header)
    rows = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in body)
    return f"<table><tr>{head}</tr>{rows}</table>"


def markdown_to_html(text: str) -> str:
    """The report's own small markdown (headings, tables, bullets, paragraphs) as HTML."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("|"):
            block = []
            while i < len(lines) and lines[i].startswith("|"):
                block.append(lines[i])
                i += 1
            out.append(_markdown_table_to_html(block))
            continue
        if line.startswith("#"):
            level = min(len(line) - len(line.lstrip("#")), 4)
            out.append(f"<h{level}>{html.escape(line.lstrip('#').strip())}</h{level}>")
        elif line.startswith("- "):
            out.append(f"<div>&bull; {html.escape(line[2:])}</div>")
        elif line.strip():
            out.append(f"<p>{html.escape(line)}</p>")
        i += 1
    return "\n".join(out)


def html_report(metrics: RunMetrics, comparison: Comparison | None = None, audit: AuditReport | None = None) -> str:
    plots = [
        ("Pass@1 per benchmark", plot_pass_by_benchmark(metrics) if metrics.benchmarks else None, ""),
        ("Constraint families", plot_family_heatmap(metrics), HEATMAP_NOTE),
        ("Error kinds", plot_error_kinds(metrics), ""),
    ]
    figures = "\n".join(
        f'<h2>{html.escape(title)}</h2><figure><img alt="{html.escape(title)}" src="data:image/png;base64,{data}">'
        + (f"<figcaption>{html.escape(note)}</figcaption>" if note else "") + "</figure>"
        for title, data, note in plots if data is not None
    )
    title, _, rest = markdown(metrics, comparison, audit).partition("\n")
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>VRPCoder evaluation: {html.escape(metrics.label)}</title><style>{_STYLE}</style></head>"
        f"<body>{markdown_to_html(title)}\n{figures}\n{markdown_to_html(rest)}</body></html>"
    )


def write_reports(
    out_dir: Path, metrics: RunMetrics, comparison: Comparison | None = None, audit: AuditReport | None = None
) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"metrics": out_dir / METRICS_FILE, "markdown": out_dir / MARKDOWN_FILE, "html": out_dir / HTML_FILE}
    payload = {"metrics": metrics.model_dump(mode="json")}
    if comparison is not None:
        payload["comparison"] = comparison.model_dump(mode="json")
    if audit is not None:
        payload["audit"] = audit.model_dump(mode="json")
    paths["metrics"].write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    paths["markdown"].write_text(markdown(metrics, comparison, audit), encoding="utf-8")
    paths["html"].write_text(html_report(metrics, comparison, audit), encoding="utf-8")
    return paths
