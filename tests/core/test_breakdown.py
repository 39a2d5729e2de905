"""`report --by-tag`, `report --items METRIC [--failed]` and `report --csv`.

Every figure is checked against a count made here straight from the stored scores and
suite, never against the breakdown's own arithmetic; the banking demo run (104 items, 9
tags, k=3) and toy stores are the cases.
"""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import pytest

from agent_assay.model import Suite
from agent_assay.store import open_existing_store, open_store
from agent_assay.views.breakdown_render import partition_line
from agent_assay.views.load import by_tag
from tests.support.invoke import Invocation, invoke
from tests.support.tamper import tampered_copy
from tests.support.toy import ToyAdapter, toy_items
from tests.support.toyrun import toy_run


def report(db: Path, run: str, *args: str) -> Invocation:
    done = invoke("report", run, *args, "--db", str(db))
    assert done.traceback is None, done.traceback
    return done


def stored_values(db: Path, run: str, metric: str) -> dict[str, list[float | None]]:
    """item -> the metric's value at each repetition, read from the store's rows."""
    store = open_existing_store(str(db), read_only=True)
    by_item: dict[str, list[float | None]] = defaultdict(list)
    for row in sorted(store.current_scores(run), key=lambda r: (r.item_id, r.repetition)):
        if row.scorer == metric:
            by_item[row.item_id].append(row.value)
    return dict(by_item)


def item_tags(db: Path, run: str) -> dict[str, tuple[str, ...]]:
    store = open_existing_store(str(db), read_only=True)
    target = store.get_run(run)
    items = store.get_suite(target.suite_hash).by_id()
    return {i: items[i].tags for i in target.item_ids}


def test_banking_has_nine_tag_rows_whose_n_sum_to_its_104_items(
    demo_db: tuple[Path, str],
) -> None:
    db, run = demo_db
    done = report(db, run, "--by-tag", "--json")
    assert done.code == 0, done.err
    cut = json.loads(done.out)["by_tag"]
    tags = item_tags(db, run)
    expected = defaultdict(int)
    for item_tag_list in tags.values():
        for tag in item_tag_list:
            expected[tag] += 1
    assert {row["tag"]: row["n_items"] for row in cut["tags"]} == expected
    assert len(cut["tags"]) == 9 and cut["items"] == len(tags) == 104
    assert cut["n_total"] == 104 and cut["overlapping_pairs"] == 0
    text = report(db, run, "--by-tag").out
    assert "9 tags; n adds up to 104 over the run's 104 items: each tagged item carries one tag" \
        in text


def test_a_tag_row_is_the_mean_over_that_tags_items_only(demo_db: tuple[Path, str]) -> None:
    db, run = demo_db
    cut = json.loads(report(db, run, "--by-tag", "--json").out)["by_tag"]
    values, tags = stored_values(db, run, "trajectory.exact"), item_tags(db, run)
    for row in cut["tags"]:
        members = [i for i, t in tags.items() if row["tag"] in t]
        means = [sum(v for v in values[i] if v is not None) / len(values[i]) for i in members]
        metric = row["metrics"]["trajectory.exact"]
        assert metric["n_items"] == len(members)
        assert metric["mean_of_k"] == pytest.approx(sum(means) / len(means))
        low, high = metric["mean_ci"]
        assert low <= metric["mean_of_k"] <= high


def test_failed_lists_exactly_the_items_with_a_failing_repetition(
    demo_db: tuple[Path, str],
) -> None:
    db, run = demo_db
    done = report(db, run, "--items", "trajectory.exact", "--failed", "--json")
    assert done.code == 0, done.err
    listed = json.loads(done.out)["items"]
    values = stored_values(db, run, "trajectory.exact")
    failing = sorted(i for i, v in values.items() if any(x == 0 for x in v))
    assert failing and [row["item_id"] for row in listed["items"]] == failing
    for row in listed["items"]:
        assert row["values"] == values[row["item_id"]]
        assert row["failed_repetitions"] == sum(x == 0 for x in values[row["item_id"]])
    text = report(db, run, "--items", "trajectory.exact", "--failed").out
    assert f"{len(failing)} items that failed at least one repetition" in text
    assert f"agent-assay trajectories show {run} {failing[0]}" in text
    everything = json.loads(report(db, run, "--items", "trajectory.exact", "--json").out)
    assert len(everything["items"]["items"]) == 104


def test_a_count_metric_fails_where_it_is_above_zero(demo_db: tuple[Path, str]) -> None:
    db, run = demo_db
    listed = json.loads(
        report(db, run, "--items", "tools.wrong", "--failed", "--json").out)["items"]
    values = stored_values(db, run, "tools.wrong")
    assert [r["item_id"] for r in listed["items"]] == sorted(
        i for i, v in values.items() if any(x is not None and x > 0 for x in v))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--failed",), "--failed needs --items METRIC"),
        (("--items", "no.such"), "unknown metric no.such in run"),
        (("--items", "cost.usd", "--failed"), "metric cost.usd is a measure"),
        (("--json", "--csv"), "choose one of --json, --csv and --html"),
        (("--csv", "--by-tag", "--items", "trajectory.exact"), "--csv writes one table"),
    ],
)
def test_a_breakdown_asked_wrongly_is_one_line(
    demo_db: tuple[Path, str], args: tuple[str, ...], message: str
) -> None:
    db, run = demo_db
    done = report(db, run, *args)
    assert done.code != 0 and done.out == ""
    assert done.err.startswith("error: ") and message in done.err
    assert len(done.err.strip().splitlines()) == 1


def test_csv_carries_the_verdict_on_every_row(demo_db: tuple[Path, str]) -> None:
    db, run = demo_db
    summary = json.loads(report(db, run, "--json").out)
    rows = list(csv.DictReader(io.StringIO(report(db, run, "--csv").out)))
    assert sorted(r["metric"] for r in rows) == sorted(summary["metrics"])
    assert {r["verdict"] for r in rows} == {"ADMISSIBLE"}
    for row in rows:
        expected = summary["metrics"][row["metric"]]["mean_of_k"]
        assert (row["mean_of_k"] == "") == (expected is None)
        if expected is not None:
            assert float(row["mean_of_k"]) == pytest.approx(expected)
    per_item = list(csv.DictReader(io.StringIO(
        report(db, run, "--csv", "--items", "trajectory.exact").out)))
    assert len(per_item) == 104 and {"rep_1", "rep_2", "rep_3"} <= set(per_item[0])
    per_tag = list(csv.DictReader(io.StringIO(report(db, run, "--csv", "--by-tag").out)))
    assert len(per_tag) == 9 * len(summary["metrics"])


def test_an_uncertified_run_is_inadmissible_in_its_csv(tmp_path: Path) -> None:
    db = tmp_path / "assay.db"
    run = toy_run(open_store(str(db)), ToyAdapter(), "good")
    rows = list(csv.DictReader(io.StringIO(report(db, run.run_id, "--csv").out)))
    assert rows and {r["verdict"] for r in rows} == {"INADMISSIBLE"}


def test_a_tampered_run_exports_no_number(demo_db: tuple[Path, str], tmp_path: Path) -> None:
    db, run = demo_db
    copy = tampered_copy(db, tmp_path / "tampered.db")
    for args in (("--csv",), ("--csv", "--by-tag"), ("--by-tag",), ("--items", "tools.wrong")):
        done = report(copy, run, *args)
        assert done.code == 2
        assert "mean of k" not in done.out and "by tag" not in done.out
        assert "0." not in done.out  # no figure of any kind
    assert "TAMPERED" in report(copy, run, "--csv").err


class OverlappingToy(ToyAdapter):
    """The toy suite with a second tag on every other item and no tag on the rest."""

    def build_suite(self, source: Path | None = None) -> Suite:
        items = tuple(
            replace(item, tags=(*item.tags, "shared") if n % 2 == 0 else ())
            for n, item in enumerate(toy_items())
        )
        return Suite(adapter=self.name, items=items, source="overlapping")


def test_overlapping_tags_are_said_to_overlap(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "assay.db"))
    run = toy_run(store, OverlappingToy(), "good")
    cut = by_tag(store, run)
    tagged = sum(bool(i.tags) for i in OverlappingToy().build_suite().items)
    assert cut.untagged == cut.items - tagged > 0
    assert cut.tagged_total == 2 * tagged and cut.overlapping == tagged
    assert {row.tag for row in cut.rows} == {"on", "shared"}  # off-L4 lost its only tag
    assert "tags overlap" in partition_line(cut) and "carry no tag" in partition_line(cut)
