"""`--cluster` on `compare` and `report`: the cluster-robust figures are the primary ones,
fewer clusters than the floor are refused in one line, and between the floor and the
trusted count every form carries a warning."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from agent_assay.aggregates import cluster_warning
from agent_assay.errors import AssayError
from agent_assay.integrity.comparability import paired
from agent_assay.model import Suite
from agent_assay.schemas import schema
from agent_assay.stats.paired import ALPHA, CLUSTERS_FLOOR, CLUSTERS_TRUSTED
from agent_assay.store import Store
from tests.support.invoke import invoke
from tests.support.toy import RichToyAdapter
from tests.support.toyrun import toy_run


class TaggedToy(RichToyAdapter):
    """The rich toy with a tag of its own first on every item: as many clusters as items
    (12), between the floor and the trusted count."""

    def build_suite(self, source: Path | None = None) -> Suite:
        suite = super().build_suite(source)
        items = tuple(replace(item, tags=(f"case-{i:02d}", *item.tags))
                      for i, item in enumerate(suite.items))
        return replace(suite, items=items)


def test_the_floor_and_the_trusted_count_divide_refusal_warning_and_silence() -> None:
    with pytest.raises(AssayError, match=f"needs at least {CLUSTERS_FLOOR}"):
        cluster_warning(CLUSTERS_FLOOR - 1, "tag")
    warned = cluster_warning(CLUSTERS_FLOOR, "tag")
    assert warned is not None and warned.startswith(f"warning: {CLUSTERS_FLOOR} clusters")
    assert cluster_warning(CLUSTERS_TRUSTED - 1, "tag") is not None
    assert cluster_warning(CLUSTERS_TRUSTED, "tag") is None


def test_too_few_clusters_are_refused_in_one_line(store: Store) -> None:
    good = toy_run(store, RichToyAdapter(), "good")
    noisy = toy_run(store, RichToyAdapter(), "noisy")
    db = str(store.engine.url.database)
    for args in (("compare", good.run_id, noisy.run_id, "--force"), ("report", good.run_id)):
        done = invoke(*args, "--cluster", "tag", "--db", db)  # on, off, look: 3 clusters
        assert done.code == 1 and done.traceback is None and done.out == ""
        assert done.err.startswith("error: --cluster tag puts the run's items in 3 cluster(s)")
        assert len(done.err.splitlines()) == 1
    bad = invoke("report", good.run_id, "--cluster", "family", "--db", db)
    assert bad.code == 1 and bad.err.startswith("error: --cluster must be 'tag'")


def test_between_floor_and_trusted_the_clustered_figures_come_with_a_warning(
    store: Store,
) -> None:
    good = toy_run(store, TaggedToy(), "good")
    noisy = toy_run(store, TaggedToy(), "noisy", repeats=2)
    db = str(store.engine.url.database)
    args = ("compare", good.run_id, noisy.run_id, "--force", "--cluster", "tag", "--db", db)
    done = invoke(*args)
    assert done.code == 0 and done.traceback is None, done.err
    lines = done.out.splitlines()
    assert any(line.startswith("clustered by tag: 12 clusters of items") for line in lines)
    assert any(line.startswith("warning: 12 clusters, fewer than the") for line in lines)
    tested = [line for line in lines if " p=" in line]
    assert tested and all("cluster-robust paired t, 12 clusters, df " in line
                          or "sign test over 12 clusters" in line for line in tested)
    assert any("cluster-robust paired t" in line for line in tested)
    data = json.loads(invoke(*args, "--json").out)
    jsonschema.validate(data, schema("compare"))
    assert data["cluster"] == "tag" and data["clusters"] == 12
    assert data["cluster_warning"].startswith("warning: 12 clusters")
    for m in data["metrics"]:
        excludes = m["ci"] is not None and (m["ci"][0] > 0 or m["ci"][1] < 0)
        assert excludes == (m["p_value"] is not None and m["p_value"] < ALPHA)
    plain = invoke("compare", good.run_id, noisy.run_id, "--force", "--db", db)
    assert "cluster-robust" not in plain.out and "paired t on item means, df 11" in plain.out
    report = invoke("report", good.run_id, "--cluster", "tag", "--db", db)
    assert report.code == 3 and "over 12 clusters of items" in report.out  # uncertified
    words = " ".join(report.out.split())  # the note wraps at the report's width
    assert "warning: 12 clusters" in words
    assert f"none for a metric whose items fall in fewer than {CLUSTERS_FLOOR} clusters" in words


def test_a_metric_whose_items_span_too_few_clusters_gets_no_clustered_figure() -> None:
    a = {f"i{n}": [1.0] for n in range(12)}
    b = {f"i{n}": [float(n % 2)] for n in range(12)}
    few = paired("m", "binary", a, b, {f"i{n}": f"c{n % 3}" for n in range(12)})
    assert few is not None and (few.ci, few.p_value) == (None, None)
    assert few.test == few.no_ci == (f"its items fall in 3 cluster(s), fewer than the "
                                      f"{CLUSTERS_FLOOR} the clustered test needs")
    many = paired("m", "binary", a, b, {f"i{n}": f"c{n}" for n in range(12)})
    assert many is not None and many.p_value is not None and many.clusters == 12
