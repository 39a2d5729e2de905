"""The run page and the comparison page: what the store holds, as one HTML file.

Both pages say their verdict before anything else, in the words the text report uses
(the same functions write them), and a tampered run shows its findings and no number.
Everything an adapter or an agent wrote reaches the page through Jinja2's autoescape, or,
in the bulky cells of the trajectory views (element content only), through `cell`, which
escapes what element content needs; the plots are inline SVG whose text matplotlib
escapes. The page loads nothing: its style, its one small script and its plots are in it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from agent_assay.aggregates import treated_metrics
from agent_assay.integrity.admissibility import SinglePass
from agent_assay.integrity.comparability import Comparison
from agent_assay.scoring.base import ScoreKind
from agent_assay.stats.paired import ALPHA
from agent_assay.version import harness_version
from agent_assay.views.breakdown import TagBreakdown, tags_of
from agent_assay.views.breakdown_render import partition_line
from agent_assay.views.gates import (
    HEADLINE_MARK,
    UNSOUND,
    admissibility_lines,
    clustering_lines,
    comparison_text,
    evidence_line,
    headline_line,
    single_pass_lines,
    tampered_lines,
    tested_line,
)
from agent_assay.views.html import plots
from agent_assay.views.html.levels import control_rows, levels
from agent_assay.views.html.trajectories import anchor, cards, definitions, views_of
from agent_assay.views.mutation_render import orders_lines
from agent_assay.views.passk import PassKReport, passk_of, unmeasured_lines
from agent_assay.views.render import (
    fmt,
    fmt_ci,
    fmt_mean_ci,
    header_lines,
    method_note,
    refusal_notes,
    small_n_notes,
)
from agent_assay.views.run_data import RunData
from agent_assay.views.summary import MetricSummary, RunSummary, summary_of


def cell(value: object) -> Markup:
    """Text for an element's content (never an attribute): `&`, `<` and `>` escaped, which
    is all text between tags needs to stay text. Autoescape also turns every quote into
    `&#34;`, five bytes for one, and a trajectory's JSON is mostly quotes."""
    if isinstance(value, Markup):
        return value
    return Markup(str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))


@cache
def environment() -> Environment:
    """The templates, autoescaped always: every string from a store is untrusted."""
    env = Environment(
        loader=PackageLoader("agent_assay.views.html", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["cell"] = cell
    return env


def _render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(version=harness_version(), **context)


@dataclass(frozen=True)
class Banner:
    """The verdict as the text report words it: the word, its sentence, the lines after."""

    word: str
    tone: str
    """ok, waived, bad or tampered: the banner's colour."""
    sentence: str
    lines: tuple[str, ...]
    chain: str = ""
    """The evidence chain's head, to publish beside the numbers."""
    single: tuple[str, ...] = ()
    """The single-pass lines: a refusal, or the run certifying a k=1 headline."""
    single_refused: bool = False
    """Whether those lines refuse the k=1 headline (shown as a warning)."""


def _plain(line: str) -> str:
    return line.removeprefix("!!!").strip()


def _banner(word: str, tone: str, lines: Sequence[str], chain: str = "",
            single: SinglePass | None = None) -> Banner:
    first = _plain(lines[0]) if lines else word
    head, _, sentence = first.partition(" -- ")
    return Banner(word, tone, sentence if head == word else first,
                  tuple(_plain(line) for line in lines[1:]), chain,
                  tuple(_plain(line) for line in single_pass_lines(single)) if single else (),
                  bool(single and single.reasons))


# ---- the run page --------------------------------------------------------------------------
def run_page_of(data: RunData) -> str:
    """`report RUN --html`: the run's report as one self-contained page, verdict first,
    from a snapshot loaded with everything the page shows (`views.load.page_data`).
    A tampered run gets its findings and no number (no plot, no table of scores), as the
    text report does, because none of its rows can be trusted to decode."""
    run, verdict = data.run, data.verdict
    if verdict.tampered:
        lines = [*tampered_lines(run, verdict.integrity), *admissibility_lines(verdict)]
        return _render("run.html.j2", run=run, tampered=True,
                       banner=_banner("TAMPERED", "tampered", lines))
    summary = summary_of(data)
    word = verdict.word
    tone = "ok" if word == "ADMISSIBLE" else "waived" if verdict.admissible else "bad"
    banner = _banner(word, tone, admissibility_lines(verdict),
                     evidence_line(verdict.integrity), data.single)
    headline = [m for m in summary.metrics if m.headline] or list(summary.metrics)
    views = views_of(data)
    return _render(
        "run.html.j2",
        run=run,
        tampered=False,
        banner=banner,
        facts=header_lines(summary),
        forest=_forest(headline, data.outcomes),
        metrics=_metric_rows(summary),
        metric_notes=_metric_notes(summary),
        passk=_passk(passk_of(data), headline),
        controls=control_rows(data.outcomes),
        mutation=_mutation(data.mutation),
        tags=_tags(tags_of(data), headline),
        items=_items(data, headline, views),
        cards=cards(run, views),
        definitions=definitions(list(views.values()), data.manifest),
    )


@dataclass(frozen=True)
class Figure:
    name: str
    svg: Markup
    notes: tuple[str, ...] = ()


def _forest(headline: Sequence[MetricSummary], outcomes: Mapping[str, Any]) -> Figure | None:
    if not headline:
        return None
    rows = [
        plots.ForestRow(m.name, m.kind, m.n_items, m.mean_of_k, m.mean_ci,
                        tuple(levels(outcomes, m.name, m.kind)), m.mean_refused)
        for m in headline
    ]
    return Figure("forest", plots.forest(rows), _missing_notes(rows))


def _missing_notes(rows: Sequence[plots.ForestRow]) -> tuple[str, ...]:
    """One sentence per control that drew nothing, naming the metrics it is missing on."""
    missing: dict[tuple[str, str], list[str]] = defaultdict(list)
    for row in rows:
        for level in row.levels:
            if level.value is None:
                key = (level.label, level.missing.replace(row.metric, "this metric"))
                missing[key].append(row.metric)
    notes = []
    for (label, why), metrics in missing.items():
        scope = "every headline metric" if len(metrics) == len(rows) else ", ".join(metrics)
        notes.append(f"{label}: nothing drawn on {scope}: {why}")
    return tuple(notes)


@dataclass(frozen=True)
class MetricRow:
    name: str
    headline: bool
    kind: str
    n: int
    mean: str
    ci: str
    n_k: str
    hat: str
    hat_ci: str
    at: str
    at_ci: str
    definition: str


def _metric_rows(summary: RunSummary) -> list[MetricRow]:
    rows = []
    for m in summary.metrics:
        judged = m.kind != "measure"
        rows.append(MetricRow(
            m.name + (" (imported)" if m.imported else ""), m.headline, m.kind, m.n_items,
            fmt(m.mean_of_k), fmt_mean_ci(m) or "n/a",
            str(m.n_pass_k) if judged else "", fmt(m.pass_hat_k) if judged else "",
            fmt_ci(m.pass_hat_k_ci), fmt(m.pass_at_k) if judged else "", fmt_ci(m.pass_at_k_ci),
            m.definition,
        ))
    return rows


def _metric_notes(summary: RunSummary) -> list[str]:
    notes = [*method_note(summary.metrics), *refusal_notes(summary.metrics),
             *small_n_notes(summary.metrics)]
    c = summary.consistency
    if summary.run.repeats == 1:
        notes.append(c.note + ".")
    else:
        notes.append(f"consistency: {fmt(c.value)} {fmt_ci(c.ci)}, n={c.n} ({c.note})")
    return notes


@dataclass(frozen=True)
class PassK:
    figure: Figure | None
    refusal: str
    """Why there is no curve (k=1, or nothing that passes or fails), else empty."""
    points: tuple[tuple[str, int, int, str, str, str, str], ...]
    notes: tuple[str, ...]


def _passk(report: PassKReport, headline: Sequence[MetricSummary]) -> PassK:
    k = report.trials
    notes = [
        f"consistency across repetitions, {c.metric}: {fmt(c.consistency)} "
        f"{fmt_ci(c.consistency_ci)}, n={c.n_items} (all {k} pass: {c.all_pass}, all fail: "
        f"{c.all_fail}, mixed: {c.n_items - c.all_pass - c.all_fail})"
        for c in report.curves
    ] if k > 1 else []
    notes += [*unmeasured_lines(report), *report.notes]
    points = tuple(
        (c.metric, p.k, p.n_items, fmt(p.pass_hat), fmt_ci(p.pass_hat_ci), fmt(p.pass_at),
         fmt_ci(p.pass_at_ci))
        for c in report.curves for p in c.points
    )
    if k == 1:
        judged = [m.name for m in headline if m.kind != "measure"]
        return PassK(None, (
            "k=1: each item ran once, so pass^k and pass@k exist only at k=1, where both are "
            "the pass rate the table above shows; there is no curve to draw, and no spread "
            "across repetitions. Run with --repeats 3 or more to see how reliability falls "
            "as k grows" + (f" ({', '.join(judged)})." if judged else ".")
        ), points, tuple(notes))
    if not report.curves:
        return PassK(None, "no curve: " + "; ".join(report.notes), points, ())
    return PassK(Figure("passk", plots.passk(report.curves, report.twins, k)), "", points,
                 tuple(notes))


@dataclass(frozen=True)
class Mutation:
    figure: Figure | None
    head: str
    score: str
    operators: tuple[tuple[str, str, str, str, str], ...]
    orders: str = ""
    """Per metric, the orders its swap mutants showed it ignores, as the text report says."""


def _mutation(rows: Sequence[Mapping[str, Any]]) -> Mutation | None:
    """The stored pass as mutation_text reads it: operator rows, then the summary."""
    if not rows:
        return None
    summary = rows[-1]
    head = (
        f"mutation pass {summary['pass_id']} over {summary['items']} items "
        f"({summary['trajectories']} trajectories); operators from {summary['source']}"
    )
    score = (
        f"gate_mutation_score: {fmt(summary['gate_mutation_score'])} -- {summary['killed']} "
        f"killed of {summary['total'] - summary['equivalent']} non-equivalent "
        f"({summary['equivalent']} equivalent, {summary['survived']} survived); "
        "the score uses the statistical detector"
    )
    operators = tuple(
        (str(op["operator"]), str(op["status"]), str(op["would_alter"]), str(op["altered"]),
         f"statistical: {', '.join(op['killed_by_test']) or '-'}; "
         f"threshold: {', '.join(op['killed_by_threshold']) or '-'}")
        for op in rows[:-1]
    )
    figure = Figure("mutation", plots.kill_matrix(rows)) if rows[:-1] else None
    return Mutation(figure, head, score, operators, "\n".join(orders_lines(rows)))


@dataclass(frozen=True)
class TagTable:
    metrics: tuple[str, ...]
    rows: tuple[tuple[str, int, tuple[tuple[str, str, int], ...]], ...]
    """(tag, n, ((mean, interval, scored n) per metric))."""
    partition: str
    refusals: tuple[str, ...] = ()
    """Why a cell's mean has no interval."""


def _tags(cut: TagBreakdown, headline: Sequence[MetricSummary]) -> TagTable:
    names = [m.name for m in headline]
    rows = []
    refusals: list[str] = []
    for row in cut.rows:
        by_name = {m.name: m for m in row.metrics}
        refusals += refusal_notes([by_name[n] for n in names if n in by_name],
                                  f" in tag {row.tag}")
        cells = tuple(
            (fmt(by_name[n].mean_of_k), fmt_mean_ci(by_name[n]), by_name[n].n_items)
            if n in by_name else ("n/a", "", 0)
            for n in names
        )
        rows.append((row.tag, row.n_items, cells))
    return TagTable(tuple(names), tuple(rows), partition_line(cut), tuple(refusals))


@dataclass(frozen=True)
class ItemRow:
    item_id: str
    tags: str
    links: tuple[tuple[int, str], ...]
    cells: tuple[tuple[str, bool], ...]
    """(mean over repetitions, whether some repetition failed) per headline metric."""
    crashed: int


def _items(
    data: RunData, headline: Sequence[MetricSummary], views: Mapping[Any, Any]
) -> list[ItemRow]:
    run = data.run
    kinds: dict[str, ScoreKind] = {m.name: m.kind for m in headline}
    columns = data.columns
    treated = treated_metrics(columns, kinds)  # what the report's figures are made of
    values: dict[tuple[str, str], list[float]] = defaultdict(list)
    failed: set[tuple[str, str]] = set()
    for name in kinds.keys() & treated.keys():
        items, _, kept = treated[name].in_means()
        for item, value in zip(items.tolist(), kept.tolist(), strict=True):
            values[(columns.item_ids[item], name)].append(value)
        items, _, passed = treated[name].in_pass_rates()
        failed |= {(columns.item_ids[item], name) for item in items[~passed].tolist()}
    crashed: dict[str, int] = defaultdict(int)
    for (item_id, _), view in views.items():
        crashed[item_id] += bool(view.trajectory.crashed)
    tags = {item.item_id: item.tags for item in data.suite.items}
    rows = []
    for position, item_id in enumerate(run.item_ids, 1):
        cells = []
        for name in kinds:
            got = values.get((item_id, name), [])
            mean = sum(got) / len(got) if got else None
            cells.append((fmt(mean), (item_id, name) in failed))
        rows.append(ItemRow(
            item_id, ", ".join(tags.get(item_id, ())),
            tuple((r, anchor(position, r)) for r in range(1, run.repeats + 1)),
            tuple(cells), crashed[item_id],
        ))
    return rows


# ---- the comparison page -------------------------------------------------------------------
def comparison_page(comparison: Comparison, *, forced: bool) -> str:
    """`compare A B --html`: the verdict first in the words `compare` prints, then (only
    when the comparison is sound, or unsound and forced) each paired difference B - A
    with its interval, every section stamped when forced. A refused or tampered
    comparison shows its mismatches and no number."""
    c = comparison
    word = c.verdict(forced=forced)
    text = comparison_text(c, forced=forced).splitlines()
    shown = word in ("COMPARED", "UNSOUND")
    cut = next((n for n, line in enumerate(text) if line.startswith("A = ")), len(text))
    lines = text[:cut]
    tone = {"COMPARED": "ok", "TAMPERED": "tampered"}.get(word, "bad")
    waived = tuple(line for line in text[cut:] if line.startswith(("A is ", "B is ")))
    banner = _banner(word, tone, [*lines, *waived]) if lines else Banner(
        word, tone, "the runs are comparable: the same suite and items, the same scorers and "
        "results-affecting environment, and both runs admissible", waived)
    return _render(
        "compare.html.j2",
        c=c,
        banner=banner,
        shown=shown,
        stamp=UNSOUND if word == "UNSOUND" else "",
        figure=Figure("differences", plots.differences(c.metrics, unsound=word == "UNSOUND"))
        if shown and c.metrics else None,
        rows=[(m.metric + (" *" if m.headline else ""), m.kind, m.n_items, fmt(m.mean_a),
               fmt(m.mean_b), f"{m.difference:+.4f}", fmt_ci(m.ci) or m.no_ci or "",
               "" if m.p_value is None else f"{m.p_value:.4g}", m.test)
              for m in c.metrics] if shown else [],
        method=clustering_lines(c) or [
            "Each p-value and interval comes from one paired t on item means (an item's "
            "repetitions averaged first), so the interval leaves out 0 exactly when p < "
            f"{ALPHA:.2g}."],
        headline=([HEADLINE_MARK] if any(m.headline for m in c.metrics) else [])
        + [headline_line(c)],
        tested=tested_line(c),
    )
