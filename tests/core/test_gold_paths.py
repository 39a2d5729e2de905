"""A system whose gold holds no calls (`Facts.gold_paths=False`) is scored without the
generic path scorers: none of them may score every call wrong, sit in the self-test, or
head the system's claims."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agent_assay.adapters.loaded import load_system
from agent_assay.errors import AssayError
from agent_assay.model import Suite
from agent_assay.scoring.registry import PATH_SCORERS, default_scorers
from agent_assay.store import Store
from tests.support.certify import certify
from tests.support.toy import ToyAdapter


class AnswerOnlyToy(ToyAdapter):
    """The toy with its gold stripped of calls: only the outcome and the state are known."""

    name = "answer-only-toy"
    facts = replace(ToyAdapter.facts, gold_paths=False,
                    headline_metrics=("outcome.match", "state.assertions"))

    def build_suite(self, source: object = None) -> Suite:
        suite = super().build_suite(None)
        items = [replace(i, gold=replace(i.gold, path=())) for i in suite.items]
        return replace(suite, items=items, adapter=self.name)


class AnswerOnlyToyScoredOnPaths(AnswerOnlyToy):
    """The same gold scored as if it held calls: what a system got before it could say so."""

    name = "answer-only-toy-on-paths"
    facts = replace(AnswerOnlyToy.facts, gold_paths=True)


def test_the_path_scorers_are_left_out_and_the_rest_kept() -> None:
    names = [s.name for s in load_system(AnswerOnlyToy()).scorers()]
    assert not set(names) & PATH_SCORERS
    assert names[:len(names) - len(ToyAdapter.facts.scorers)] == [
        s.name for s in default_scorers() if s.name not in PATH_SCORERS]
    with_paths = {s.name for s in load_system(ToyAdapter()).scorers()}
    assert {"trajectory.exact", "tools.recall"} <= with_paths


def test_a_path_headline_without_gold_paths_is_refused_naming_it() -> None:
    class PathHeadline(AnswerOnlyToy):
        facts = replace(AnswerOnlyToy.facts, headline_metrics=("trajectory.exact", "outcome.match"))

    with pytest.raises(AssayError, match=r"headline metric trajectory.exact holds calls against "
                                         r"gold's, and this system's gold holds none"):
        load_system(PathHeadline())


def never_probed(got: dict[str, object]) -> set[str]:
    measured = got["payloads"]["scorer_selftest"]["measured"]  # type: ignore[index]
    return {name for name, seen in measured["scorers"].items()
            if seen.get("red") is False and seen.get("probed") == 0}


def test_answer_only_gold_puts_no_path_scorer_in_the_self_test(store: Store) -> None:
    got = certify(store, AnswerOnlyToy(), "good")
    probed = set(got["payloads"]["scorer_selftest"]["measured"]["scorers"])
    assert probed and not probed & PATH_SCORERS
    assert not never_probed(got) & PATH_SCORERS


def test_the_same_gold_scored_on_paths_leaves_path_scorers_never_probed(store: Store) -> None:
    got = certify(store, AnswerOnlyToyScoredOnPaths(), "good")
    assert got["by_kind"]["scorer_selftest"].status == "FAILED"
    assert {"trajectory.exact", "tools.missing"} <= never_probed(got)
