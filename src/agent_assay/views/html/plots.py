"""The page's plots, each drawn once with matplotlib and returned as an inline <svg>.

- `forest`: each headline metric's mean with its 95% interval, on the same axis as what
  the null agents, the random agent and the positive control measured on that metric,
  and the line each control's band drew (the mean had to clear it);
- `passk`: pass^k and pass@k for k = 1..repeats with their intervals, per pass/fail
  headline metric, beside each null agent's pass rate;
- `kill_matrix`: the stored mutation pass, operator x metric, coloured by which detector
  saw the operator on that metric, each cell holding the metric's worsening;
- `differences`: a comparison's paired differences B - A with their intervals.
Every number drawn is one the text report prints; nothing is computed here but layout.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.transforms import blended_transform_factory

from agent_assay.integrity.comparability import PairedMetric
from agent_assay.scoring.base import ScoreKind
from agent_assay.stats.intervals import Interval
from agent_assay.views.gates import UNSOUND
from agent_assay.views.html.levels import Level
from agent_assay.views.html.svg import figure, to_svg
from agent_assay.views.passk import Curve, NullTwin
from agent_assay.views.render import fmt, fmt_ci

INK = "#1d232a"
MUTED = "#6b747e"
BAD = "#b42318"
COLOURS = {"null_agent": "#c2410c", "random_agent": "#6d28d9", "positive_control": "#15803d"}
MARKERS = {"null_agent": "D", "random_agent": "s", "positive_control": "^"}
BOUNDED: frozenset[str] = frozenset({"binary", "fraction"})
MISSING_CHARS = 95


def _short(text: str, limit: int = MISSING_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _span(values: Sequence[float], bounded: bool) -> tuple[float, float]:
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    if bounded:
        low, high = min(low, 0.0), max(high, 1.0)
    if high - low < 1e-9:
        low, high = low - 0.5, high + 0.5
    pad = (high - low) * 0.03
    return low - pad, high + pad


def _right(ax: Axes, y: float, text: str, colour: str = INK) -> None:
    """A value printed to the right of the axes, on row y."""
    where = blended_transform_factory(ax.transAxes, ax.transData)
    ax.text(1.015, y, text, transform=where, ha="left", va="center", fontsize=9,
            color=colour, clip_on=False)


def _spacing(fig: Any, between: float) -> None:
    """Room between panels (the figure lays itself out; this is the gap it keeps)."""
    engine = fig.get_layout_engine()
    if engine is not None:
        engine.set(hspace=between, wspace=0.04)


def _signed(value: float) -> str:
    """A worsening to two decimals, a true minus sign, and no signed zero."""
    text = f"{value:+.2f}"
    return "0.00" if text in ("+0.00", "-0.00") else text.replace("-", "−")


def _errorbar(ax: Axes, x: float, y: float, ci: Interval | None, colour: str, **kw: Any) -> None:
    err = None if ci is None else [[max(x - ci[0], 0.0)], [max(ci[1] - x, 0.0)]]
    ax.errorbar([x], [y], xerr=err, fmt="o", color=colour, ecolor=colour, capsize=3.5, **kw)


# ---- forest ------------------------------------------------------------------------------
@dataclass(frozen=True)
class ForestRow:
    metric: str
    kind: ScoreKind
    n_items: int
    mean: float | None
    ci: Interval | None
    levels: tuple[Level, ...]
    refused: str | None = None
    """Why the mean has no interval (said beside the point; the table's notes give it)."""


def _level_text(level: Level) -> str:
    if level.value is None:
        return ""
    if level.threshold is None:
        return fmt(level.value)
    return f"{fmt(level.value)}; line at {fmt(level.threshold)}"


def forest(rows: Sequence[ForestRow]) -> Markup:
    """One panel per headline metric: the run's mean and interval, then each control."""
    bounded = all(r.kind in BOUNDED for r in rows)
    heights = [1 + len(r.levels) for r in rows]
    with figure("forest", 10.5, 0.7 + 0.3 * sum(heights) + 0.45 * len(rows)) as fig:
        axes = fig.subplots(len(rows), 1, squeeze=False, gridspec_kw={"height_ratios": heights})
        _spacing(fig, 0.1)
        for ax, row in zip((a[0] for a in axes), rows, strict=True):
            _forest_panel(ax, row)
        handles = [
            Line2D([], [], color=INK, marker="o", lw=2, label="this run: mean over items, 95% CI"),
            *(Line2D([], [], color=COLOURS[k], marker=MARKERS[k], lw=0, label=label)
              for k, label in (("null_agent", "null agent: its mean"),
                               ("random_agent", "random agent: mean over seeds"),
                               ("positive_control", "positive control: gold replayed"))),
            Line2D([], [], color=MUTED, marker="|", ms=11, mew=2, lw=1.2, ls=":",
                   label="a control's band: the line the run's mean had to clear"),
        ]
        fig.legend(handles=handles, loc="outside lower center", ncol=3)
        if bounded:
            for ax in (a[0] for a in axes):
                ax.set_xlim(*_span([v for r in rows for v in _values(r)], True))
        return to_svg(fig, "forest", "headline metrics beside the control levels")


def _values(row: ForestRow) -> list[float]:
    values = [v for v in (row.mean, *(row.ci or ())) if v is not None]
    for level in row.levels:
        values += [v for v in (level.value, level.threshold) if v is not None]
    return values


def _forest_panel(ax: Axes, row: ForestRow) -> None:
    labels = ["this run (mean of k)"] + [lv.caption for lv in row.levels]
    ax.set_yticks(range(len(labels)), labels)
    ax.set_ylim(len(labels) - 0.5, -0.5)
    ax.grid(True, axis="x")
    ax.tick_params(axis="y", length=0)
    ax.set_title(f"{row.metric}  ({row.kind})")
    low, high = _span(_values(row), row.kind in BOUNDED)
    ax.set_xlim(low, high)
    if row.mean is None:
        ax.text(low, 0, "  no value stored", color=MUTED, style="italic", va="center")
    else:
        _errorbar(ax, row.mean, 0, row.ci, INK, ms=6, elinewidth=2.2, zorder=4)
        shown = "no interval" if row.refused else fmt_ci(row.ci)
        _right(ax, 0, f"{fmt(row.mean)} {shown}, n={row.n_items}")
    for y, level in enumerate(row.levels, 1):
        colour = COLOURS.get(level.control, MUTED)
        if level.value is None:
            ax.text(low, y, "  nothing drawn: " + _short(level.missing), color=MUTED,
                    style="italic", va="center", fontsize=9)
            continue
        if level.threshold is not None:
            ax.plot([level.value, level.threshold], [y, y], color=colour, lw=1.4, alpha=0.55,
                    solid_capstyle="butt", zorder=2)
            ax.plot([level.threshold], [y], color=colour, marker="|", ms=12, mew=2, zorder=3)
            ax.axvline(level.threshold, color=colour, lw=0.9, ls=":", alpha=0.8, zorder=1)
        ax.plot([level.value], [y], color=colour, marker=MARKERS.get(level.control, "o"),
                ms=6.5, lw=0, zorder=4)
        _right(ax, y, _level_text(level), colour)


# ---- pass^k ------------------------------------------------------------------------------
PASS_HAT = "#1f4e79"
PASS_AT = "#b45309"


def _band(ci: Interval | None) -> tuple[float, float]:
    return (math.nan, math.nan) if ci is None else ci


def passk(curves: Sequence[Curve], twins: Sequence[NullTwin], k: int) -> Markup:
    """pass^k and pass@k against k, one panel per metric, null agents as flat lines."""
    columns = min(len(curves), 4)
    lines = math.ceil(len(curves) / columns)
    with figure("passk", min(2.7 * columns + 0.5, 10.5), 2.6 * lines + 0.7) as fig:
        axes = fig.subplots(lines, columns, squeeze=False, sharey=True)
        _spacing(fig, 0.08)
        flat = [ax for line in axes for ax in line]
        for ax, c in zip(flat, curves, strict=False):
            ks = [p.k for p in c.points]
            for values, cis, colour, style, marker in (
                ([p.pass_hat for p in c.points], [p.pass_hat_ci for p in c.points],
                 PASS_HAT, "-", "o"),
                ([p.pass_at for p in c.points], [p.pass_at_ci for p in c.points],
                 PASS_AT, "--", "s"),
            ):
                ax.fill_between(ks, [_band(ci)[0] for ci in cis], [_band(ci)[1] for ci in cis],
                                color=colour, alpha=0.13, lw=0)
                ax.plot(ks, values, color=colour, ls=style, marker=marker, ms=4.5, lw=1.8)
            for twin in (t for t in twins if t.metric == c.metric):
                ax.axhline(twin.value, color=COLOURS["null_agent"], ls=":", lw=1.2)
                ax.text(k, twin.value, f"null agent {twin.agent} {fmt(twin.value)}",
                        color=COLOURS["null_agent"], ha="right", va="bottom", fontsize=7.5)
            ax.set_title(c.metric + (" (imported)" if c.imported else ""))
            ax.set_xticks(range(1, k + 1))
            ax.set_xlim(0.8, k + 0.2)
            ax.set_ylim(-0.03, 1.03)
            ax.set_xlabel("k (repetitions drawn per item)")
            ax.grid(True)
        for ax in flat[len(curves):]:
            ax.set_visible(False)
        for line in axes:
            line[0].set_ylabel("mean over items")
        handles = [
            Line2D([], [], color=PASS_HAT, marker="o", lw=1.8,
                   label="pass^k: all k repetitions pass"),
            Line2D([], [], color=PASS_AT, marker="s", ls="--", lw=1.8,
                   label="pass@k: at least one of k passes"),
            Patch(color=INK, alpha=0.13, label="95% interval over items"),
            Line2D([], [], color=COLOURS["null_agent"], ls=":", lw=1.2,
                   label="null agent's pass rate (run once per item)"),
        ]
        fig.legend(handles=handles, loc="outside lower center", ncol=2)
        return to_svg(fig, "passk", "pass^k and pass@k against k")


# ---- mutation kill matrix --------------------------------------------------------------
KILL_COLOURS = ("#ffffff", "#eceff2", "#b9d3ea", "#5b8fc7", "#1f4e79")
KILL_LABELS = (
    "no verdict stored",
    "not detected",
    "threshold only (not counted)",
    "statistical test only",
    "statistical test and threshold",
)


def _kill_code(op: Mapping[str, Any], metric: str, verdicts: Mapping[str, Any]) -> int:
    by_test = metric in op.get("killed_by_test", [])
    by_threshold = metric in op.get("killed_by_threshold", [])
    if by_test:
        return 4 if by_threshold else 3
    if by_threshold:
        return 2
    return 1 if metric in verdicts else 0


def kill_metrics(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The metrics of the pass, in the order its summary lists its detectors."""
    summary, operators = rows[-1], rows[:-1]
    order = [str(m) for m in summary.get("detector_metrics", [])]
    for op in operators:
        for v in op.get("verdicts", []):
            if v.get("metric") not in order:
                order.append(str(v.get("metric")))
    return order


def kill_matrix(rows: Sequence[Mapping[str, Any]]) -> Markup:
    """Operators down, metrics across; the colour says which detector saw the operator on
    that metric, the number is the metric's worsening under it."""
    operators = rows[:-1]
    metrics = kill_metrics(rows)
    codes: list[list[int]] = []
    notes: list[list[str]] = []
    for op in operators:
        verdicts = {str(v.get("metric")): v for v in op.get("verdicts", [])}
        codes.append([_kill_code(op, m, verdicts) for m in metrics])
        notes.append([
            "n/a" if m not in verdicts or verdicts[m].get("worsening") is None
            else _signed(float(verdicts[m]["worsening"]))
            for m in metrics
        ])
    width = min(2.4 + 0.72 * max(len(metrics), 1), 10.5)
    with figure("mutation", width, 2.4 + 0.4 * max(len(operators), 1)) as fig:
        ax = fig.subplots()
        ax.imshow(codes, cmap=ListedColormap(KILL_COLOURS), vmin=-0.5, vmax=4.5,
                  aspect="auto", interpolation="nearest")
        for i, line in enumerate(notes):
            for j, text in enumerate(line):
                ax.text(j, i, text, ha="center", va="center", fontsize=7.5,
                        color="#ffffff" if codes[i][j] >= 3 else INK)
        ax.set_xticks(range(len(metrics)), metrics, rotation=35, ha="right",
                      rotation_mode="anchor")
        ax.set_yticks(range(len(operators)),
                      [f"{op.get('operator')} · {op.get('status')}" for op in operators])
        for label, op in zip(ax.get_yticklabels(), operators, strict=True):
            if op.get("status") == "SURVIVED":
                label.set_color(BAD)
        ax.set_xticks([x - 0.5 for x in range(1, len(metrics))], minor=True)
        ax.set_yticks([y - 0.5 for y in range(1, len(operators))], minor=True)
        ax.grid(True, which="minor", color="#ffffff", lw=1.5)
        ax.grid(False, which="major")
        ax.tick_params(which="both", length=0)
        for side in ("left", "bottom"):
            ax.spines[side].set_visible(False)
        handles = [Patch(facecolor=c, edgecolor="#c4cad0", label=lab)
                   for c, lab in zip(KILL_COLOURS, KILL_LABELS, strict=True)]
        fig.legend(handles=handles, loc="outside lower center", ncol=3)
        return to_svg(fig, "mutation", "mutation kill matrix, operator by metric")


# ---- comparison --------------------------------------------------------------------------
def _figures(m: PairedMetric) -> str:
    """The interval and p-value a row shows, or why it has none."""
    if m.p_value is None:
        return m.test
    return f"{fmt_ci(m.ci) or '[no interval]'}  p={m.p_value:.4g}"


def _groups(metrics: Sequence[PairedMetric]) -> list[tuple[str, list[PairedMetric]]]:
    """Metrics on one scale share a panel: shares (binary, fraction), counts, then each
    measure alone (its unit is its own)."""
    shares = [m for m in metrics if m.kind in BOUNDED]
    counts = [m for m in metrics if m.kind == "count"]
    others = [m for m in metrics if m.kind not in BOUNDED and m.kind != "count"]
    groups = [("shares (binary and fraction metrics)", shares), ("counts", counts)]
    groups += [(f"{m.metric} ({m.kind})", [m]) for m in others]
    return [(title, group) for title, group in groups if group]


def differences(metrics: Sequence[PairedMetric], *, unsound: bool) -> Markup:
    """Each metric's paired difference B - A with its interval (the one its p-value comes
    from), zero marked; a metric with no interval is a grey point with the reason beside."""
    groups = _groups(metrics)
    heights = [len(g) for _, g in groups]
    with figure("differences", 10.5, 0.8 + 0.34 * sum(heights) + 0.55 * len(groups)) as fig:
        axes = fig.subplots(len(groups), 1, squeeze=False, gridspec_kw={"height_ratios": heights})
        _spacing(fig, 0.06)
        for ax, (title, group) in zip((a[0] for a in axes), groups, strict=True):
            ax.axvline(0.0, color=MUTED, lw=1)
            spread: list[float] = [0.0]
            for y, m in enumerate(group):
                spread += [m.difference, *(m.ci or ())]
                _errorbar(ax, m.difference, y, m.ci, INK if m.ci else MUTED, ms=5.5,
                          elinewidth=2, zorder=3)
                _right(ax, y, f"{m.difference:+.4f} {_figures(m)}  n={m.n_items}")
            low, high = _span(spread, False)
            reach = max(abs(low), abs(high))
            ax.set_xlim(-reach, reach)
            ax.set_yticks(range(len(group)),
                          [m.metric + (" *" if m.headline else "") for m in group])
            ax.set_ylim(len(group) - 0.5, -0.6)
            ax.tick_params(axis="y", length=0)
            ax.grid(True, axis="x")
            ax.set_title(title + (f"  [{UNSOUND}]" if unsound else ""),
                         color=BAD if unsound else INK)
        robust = any(m.clusters is not None for m in metrics)
        handles = [Line2D([], [], color=INK, marker="o", lw=2,
                          label="B − A: mean paired difference, 95% CI of the "
                          + ("cluster-robust paired t" if robust else "paired t")),
                   Line2D([], [], color=MUTED, marker="o", lw=0,
                          label="no interval (why is printed beside it)")]
        if any(m.headline for m in metrics):
            handles.append(Line2D([], [], lw=0, label="* headline metric"))
        fig.legend(handles=handles, loc="outside lower center", ncol=3)
        if unsound:
            fig.suptitle(f"{UNSOUND}: forced with --force", color=BAD,
                         fontweight="bold", x=0.02, ha="left")
        return to_svg(fig, "differences", "paired differences B minus A")
