"""summarise / render on real toy runs, with hand-computed expectations."""

from __future__ import annotations

import json
import os
import random

import pytest

from agent_assay.hashing import stable_seed
from agent_assay.runner import execute_run
from agent_assay.stats.intervals import METHODS, exact_interval
from agent_assay.store import Store
from agent_assay.views.load import summarise
from agent_assay.views.render import fmt, fmt_ci, fmt_signed, render_json, render_text, summary_json
from tests.support.toy import ToyAdapter
from tests.support.toyrun import new_toy_run, toy_run

ITEMS = ["off-L4", "on-L1", "on-L2", "on-L3"]
K = 3
SEED = 0


def extra_look(item: str, rep: int) -> bool:
    """Whether the noisy toy adds a second look: how its seeds are derived, re-done by hand."""
    return random.Random(stable_seed(SEED, item, rep)).random() < 0.5


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


@pytest.fixture
def noisy(store: Store, toy: ToyAdapter):  # type: ignore[no-untyped-def]
    run = toy_run(store, toy, "noisy", repeats=K, seed=SEED)
    return run, summarise(store, run)


def test_noisy_run_really_varies() -> None:
    flags = {(i, r): extra_look(i, r) for i in ITEMS for r in range(1, K + 1)}
    assert any(flags.values()) and not all(flags.values())
    assert any(len({flags[(i, r)] for r in range(1, K + 1)}) == 2 for i in ITEMS)


def test_summary_per_repetition_and_pass_k(noisy) -> None:  # type: ignore[no-untyped-def]
    _, summary = noisy
    assert summary.status.state == "complete"
    assert (summary.status.expected, summary.status.stored) == (12, 12)
    exact = {(i, r): 0.0 if extra_look(i, r) else 1.0 for i in ITEMS for r in range(1, K + 1)}

    m = summary.metric("trajectory.exact")
    assert m.kind == "binary" and m.headline and m.n_items == 4
    assert m.per_repetition == pytest.approx(
        [_mean([exact[(i, r)] for i in ITEMS]) for r in range(1, K + 1)])
    assert m.mean_of_k == pytest.approx(_mean([exact[(i, r)] for i in ITEMS for r in (1, 2, 3)]))
    assert m.pass_hat_k == pytest.approx(
        _mean([float(all(exact[(i, r)] for r in (1, 2, 3))) for i in ITEMS]))
    assert m.pass_at_k == pytest.approx(
        _mean([float(any(exact[(i, r)] for r in (1, 2, 3))) for i in ITEMS]))

    redundant = summary.metric("tools.redundant")
    assert redundant.kind == "count"
    assert redundant.per_repetition == pytest.approx(
        [_mean([1.0 - exact[(i, r)] for i in ITEMS]) for r in (1, 2, 3)])
    assert redundant.pass_hat_k == m.pass_hat_k  # count passes at 0 = no extra look

    lcs = summary.metric("trajectory.lcs")  # a second look: 2*2/(3+2) = 0.8
    assert lcs.mean_of_k == pytest.approx(
        _mean([1.0 if exact[(i, r)] else 0.8 for i in ITEMS for r in (1, 2, 3)]))

    outcome = summary.metric("outcome.match")
    assert outcome.per_repetition == (1.0, 1.0, 1.0)
    assert outcome.mean_of_k == outcome.pass_hat_k == outcome.pass_at_k == 1.0
    assert outcome.mean_ci == exact_interval(4, 4)

    latency = summary.metric("latency.total_ms")
    assert latency.kind == "measure"
    assert latency.pass_hat_k is None and latency.pass_at_k is None


def test_consistency_is_share_of_identical_paths(noisy) -> None:  # type: ignore[no-untyped-def]
    _, summary = noisy
    same = sum(len({extra_look(i, r) for r in range(1, K + 1)}) == 1 for i in ITEMS)
    c = summary.consistency
    assert c.n == 4
    assert c.value == pytest.approx(same / 4)
    assert c.ci == exact_interval(same, 4)
    assert "3 proposal paths are byte-identical" in c.note


def test_binary_pass_hat_le_mean_le_pass_at(noisy) -> None:  # type: ignore[no-untyped-def]
    _, summary = noisy
    binary = [m for m in summary.metrics if m.kind == "binary"]
    assert {m.name for m in binary} == {"trajectory.exact", "outcome.match"}
    for m in binary:
        assert m.pass_hat_k is not None and m.mean_of_k is not None and m.pass_at_k is not None
        assert m.pass_hat_k <= m.mean_of_k <= m.pass_at_k
    exact = summary.metric("trajectory.exact")
    assert exact.pass_hat_k < exact.mean_of_k < exact.pass_at_k  # type: ignore[operator]


def test_summary_is_deterministic(store: Store, noisy) -> None:  # type: ignore[no-untyped-def]
    run, summary = noisy
    again = summarise(store, run)
    assert render_json(again) == render_json(summary)


def test_k1_text_says_there_is_no_consistency_figure(store: Store, toy: ToyAdapter) -> None:
    run = toy_run(store, toy, "good", repeats=1)
    summary = summarise(store, run)
    assert summary.consistency.value is None and summary.consistency.n == 0
    text = render_text(summary)
    assert "no consistency figure" in text
    assert "consistency:" not in text
    assert "per repetition" not in text
    assert f"run {run.run_id}" in text and "status=complete" in text


def test_k3_text_shows_consistency_and_repetitions(noisy) -> None:  # type: ignore[no-untyped-def]
    _, summary = noisy
    text = render_text(summary)
    c = summary.consistency
    assert f"consistency: {c.value:.4f} [{c.ci[0]:.4f}, {c.ci[1]:.4f}], n=4" in text
    assert "per repetition" in text
    assert "no consistency figure" not in text
    assert "pass^3" in text and "pass@3" in text
    assert "tools.redundant" in text
    headline = render_text(summary, headline_only=True)
    assert "tools.redundant" not in headline and "trajectory.exact *" in headline


def test_json_render_is_valid_with_sorted_keys(noisy) -> None:  # type: ignore[no-untyped-def]
    run, summary = noisy
    text = render_json(summary)
    data = json.loads(text)
    assert text == json.dumps(data, sort_keys=True, indent=2)
    assert data == json.loads(json.dumps(summary_json(summary)))
    assert data["run"]["run_id"] == run.run_id
    assert data["status"]["state"] == "complete"
    assert list(data["metrics"]) == sorted(data["metrics"])
    assert len(data["metrics"]) == 13
    exact = data["metrics"]["trajectory.exact"]
    assert exact["per_repetition"] == list(summary.metric("trajectory.exact").per_repetition)
    assert data["consistency"]["n"] == 4


def test_crashy_status_and_running_status(store: Store, toy: ToyAdapter) -> None:
    crashy = toy_run(store, toy, "crashy")
    status = summarise(store, crashy).status
    assert status.state == "incomplete"
    assert status.crashed == 1
    assert any("1 trajectories crashed" in r for r in status.reasons)
    assert "!!! 1 trajectories crashed" in render_text(summarise(store, crashy))

    pending = new_toy_run(store, toy, "good", repeats=2)
    waiting = summarise(store, pending).status
    assert waiting.state == "running"
    assert waiting.reasons[:2] == (
        "8 of 8 trajectories not stored",
        "4 items with fewer than 2 measured repetitions left out of pass^2 and pass@2")
    assert waiting.reasons[2].startswith(f"being written by pid {os.getpid()} on ")
    execute_run(store, toy, pending, progress=False)
    assert summarise(store, pending).status.state == "complete"


def test_a_value_that_rounds_to_nought_is_shown_without_a_sign() -> None:
    assert fmt(-1e-12) == "0.0000" and fmt(-0.0) == "0.0000"
    assert fmt_signed(-4e-5) == "+0.0000" and fmt_signed(-6e-5) == "-0.0001"
    assert fmt_ci((-1e-9, 0.25)) == "[0.0000, 0.2500]"
    assert fmt(-0.12344) == "-0.1234"


def test_many_repetitions_show_the_ends_and_each_metrics_extremes(
    store: Store, toy: ToyAdapter
) -> None:
    """Past REPETITION_ROWS the table keeps the first and last five and names where each
    headline metric was lowest and highest, instead of a row per repetition."""
    from agent_assay.views.render import REPETITION_ROWS

    k = REPETITION_ROWS + 5
    run = toy_run(store, toy, "noisy", repeats=k, seed=SEED)
    summary = summarise(store, run)
    text = render_text(summary)
    lines = text[text.index("per repetition"):text.index("consistency:")].splitlines()
    assert f"{k} repetitions: the first and last 5" in lines[0]
    assert [line.split()[0] for line in lines[3:] if line.strip()] == [
        "1", "2", "3", "4", "5", "...", *map(str, range(k - 4, k + 1)), "lowest", "highest"]
    metric = next(m for m in summary.metrics if m.headline and len(set(m.per_repetition)) > 1)
    values = list(metric.per_repetition)
    low, high = min(v for v in values if v is not None), max(v for v in values if v is not None)
    assert low < high  # the noisy agent moves between repetitions
    lowest = next(line for line in lines if line.startswith("lowest"))
    highest = next(line for line in lines if line.startswith("highest"))
    assert f"{fmt(low)} (rep {values.index(low) + 1})" in lowest
    assert f"{fmt(high)} (rep {values.index(high) + 1})" in highest


def test_each_interval_is_named_by_its_kind_and_a_refused_one_says_why(
    noisy,  # type: ignore[no-untyped-def]
) -> None:
    _, summary = noisy
    data = json.loads(render_json(summary))
    for name, m in data["metrics"].items():
        assert m["interval_method"] == METHODS[m["kind"]], name
        assert (m["mean_ci"] is None) == (m["interval_refused"] is not None), name
    latency = summary.metric("latency.total_ms")  # 4 items of a skewed measure: too few
    assert latency.mean_ci is None and latency.mean_refused is not None
    assert latency.mean_refused.startswith(
        "n too small for an interval on a heavy-tailed measure: skewness ")
    text = render_text(summary)
    row = next(line for line in text.splitlines() if line.startswith("latency.total_ms"))
    assert row.split()[1:] == ["measure", "4", fmt(latency.mean_of_k), "[no", "interval]"]
    assert f"no interval on latency.total_ms: {latency.mean_refused}." in " ".join(text.split())
    assert f"count: {METHODS['count']}" in " ".join(text.split())
    redundant = summary.metric("tools.redundant")  # a count: never a binomial bound
    assert redundant.mean_ci is not None and redundant.mean_method == METHODS["count"]


def test_emoji_codes_in_shown_text_stay_text() -> None:
    """An item id or message holding `:thumbs_up:` is shown as written; rich would otherwise
    replace it, in a table cell as in a line."""
    from rich.markup import escape
    from rich.table import Table

    from agent_assay.views.render import console_text

    table = Table()
    table.add_column("item")
    table.add_row(escape("refund:thumbs_up:42"))
    shown = console_text(table, escape("a :smile: b"))
    assert "refund:thumbs_up:42" in shown and "a :smile: b" in shown
