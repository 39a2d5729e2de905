"""Score sets: a trajectory's scores packed into one row, unpacked exactly; a misshapen set is
a one-line error naming its row; and a run written a row per score (before schema 4) reads,
re-scores, exports and verifies beside the new layout."""

from __future__ import annotations

import math
import struct
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_assay.errors import AssayError
from agent_assay.hashing import canonical_json
from agent_assay.rescoring import rescore
from agent_assay.scoring.outcome import OutcomeMatch
from agent_assay.store import Store
from agent_assay.store.bundle import export_bundle, load_bundle
from agent_assay.store.encoding import ScoreSet, score_pack
from agent_assay.store.evidence import check_run_chain
from agent_assay.views.load import summarise
from tests.support.legacy import score_rows_layout
from tests.support.toy import ToyAdapter
from tests.support.toyrun import toy_run

names = st.text(min_size=1, max_size=12)
values = st.none() | st.floats(allow_nan=False, allow_infinity=False)
details = st.none() | st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5),
                                      min_size=1, max_size=3)
entries = st.lists(st.tuples(names, st.text(max_size=4), st.booleans(), values, details),
                   max_size=15, unique_by=lambda e: e[0])


@given(entries)
def test_a_set_unpacks_to_exactly_what_was_packed(packed_entries: list[score_pack.Entry]) -> None:
    packed = score_pack.pack(packed_entries, "item", 1)
    columns = score_pack.scorer_columns("row", packed.scorers)
    assert [(c.name, c.version, c.imported) for c in columns] == [e[:3] for e in packed_entries]
    got = score_pack.values_of("row", packed.packed_values, len(columns))
    for value, entry in zip(got, packed_entries, strict=True):
        assert value == entry[3] and math.copysign(1, value or 1) == math.copysign(1, entry[3] or 1)
    assert list(score_pack.details_of("row", packed.details, len(columns))) == [
        e[4] or None for e in packed_entries]



@given(entries)
def test_a_set_packs_as_three_plain_encodings_from_records_or_entries(
        packed_entries: list[score_pack.Entry]) -> None:
    """One pass that checks each value as it packs it stores what checking every value and
    then encoding each column did."""
    plain = score_pack.PackedScores(
        canonical_json([[name, version, bool(imported)]
                        for name, version, imported, _, _ in packed_entries]),
        struct.pack(f"<{len(packed_entries)}d", *(
            math.nan if e[3] is None else float(e[3]) for e in packed_entries)).hex(),
        canonical_json([dict(e[4]) if e[4] else None for e in packed_entries])
        if any(e[4] for e in packed_entries) else None)
    scored = ScoreSet("item", 1, packed_entries)
    assert score_pack.pack_records(scored) == (plain if packed_entries else None)
    assert score_pack.pack_records(scored.records()) == (plain if packed_entries else None)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_set_refuses_a_value_that_is_not_finite_naming_scorer_and_slot(bad: float) -> None:
    entries = [("a", "1", False, 1.0, None), ("b", "1", False, bad, None)]
    for given_as in (ScoreSet("item-7", 3, entries), ScoreSet("item-7", 3, entries).records()):
        with pytest.raises(AssayError, match=r"scorer b returned .* for item-7/3"):
            score_pack.pack_records(given_as)


@pytest.mark.parametrize(("scorers", "packed", "notes", "problem"), [
    ("not json", "", None, "its scorers are not a JSON list"),
    ('[["a", "1"]]', "00" * 8, None, "a scorer entry is not [name, version, imported]"),
    ('[["a", "1", false], ["a", "2", false]]', "00" * 16, None, "it names one scorer twice"),
    ('[["a", "1", false]]', "00" * 7, None, "its packed values do not hold 1 numbers"),
    ('[["a", "1", false]]', "zz" * 8, None, "its packed values do not hold 1 numbers"),
    ('[["a", "1", false]]', "00" * 8, '[{"x": 1}, null]', "not a list of 1 objects or nulls"),
    ('[["a", "1", false]]', "00" * 8, '["text"]', "not a list of 1 objects or nulls"),
])
def test_a_misshapen_set_is_one_line_naming_its_row(
    scorers: str, packed: str, notes: str | None, problem: str
) -> None:
    with pytest.raises(AssayError) as error:
        columns = score_pack.scorer_columns("score_sets row 7", scorers)
        score_pack.values_of("score_sets row 7", packed, len(columns))
        score_pack.details_of("score_sets row 7", notes, len(columns))
    message = str(error.value)
    assert message.startswith("score_sets row 7: stored score set does not fit its shape")
    assert problem in message and "\n" not in message


def test_a_run_written_a_row_per_score_reads_rescores_and_verifies(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    toy = ToyAdapter()
    with score_rows_layout():
        legacy = toy_run(store, toy, "crashy", repeats=2)
    packed = toy_run(store, toy, "crashy", repeats=2)
    assert store.count_rows("scores") == 8 * 13 and store.count_rows("score_sets") == 8
    assert check_run_chain(store, legacy.run_id).findings == ()

    timed = "latency.total_ms"  # the one metric that differs between two runs of one config

    def numbers(run_id: str) -> list[tuple[object, ...]]:
        return [(m.name, m.n_items, m.mean_of_k, m.pass_hat_k, m.per_repetition)
                for m in summarise(store, store.get_run(run_id)).metrics if m.name != timed]

    def values(run_id: str) -> list[tuple[object, ...]]:
        return [(*r.slot_key(), r.value, r.detail) for r in store.current_scores(run_id)
                if r.scorer != timed]

    assert numbers(legacy.run_id) == numbers(packed.run_id)
    assert values(legacy.run_id) == values(packed.run_id)

    monkeypatch.setattr(OutcomeMatch, "version", "2")  # the new generation goes into sets
    assert rescore(store, toy, legacy.run_id).generation == 1
    assert store.count_rows("score_sets") == 8 + 8
    check = check_run_chain(store, legacy.run_id)
    assert check.findings == () and check.evidence.scores.n == 8
    assert {r.scorer_version for r in store.current_scores(legacy.run_id)
            if r.scorer == "outcome.match"} == {"2"}

    bundle = tmp_path / "legacy.bundle"
    export_bundle(store, legacy.run_id, bundle)
    loaded, _ = load_bundle(bundle)
    assert check_run_chain(loaded, legacy.run_id).findings == ()
    assert loaded.current_scores(legacy.run_id) == store.current_scores(legacy.run_id)
