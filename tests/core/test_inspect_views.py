"""`runs show` and `trajectories show`: what a run is, and where one of its numbers came from.

Every case runs the CLI in this process on toy runs whose paths are known by hand: the
good config follows gold, wrong_arg switches the next lamp (diverging at the second
call), crashy raises on lamp L2.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_assay.scoring.registry import default_scorers
from tests.support.invoke import Invocation, invoke, on_path
from tests.support.tamper import tampered_copy
from tests.support.toyrun import write_toy_dist


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """One store with a good, a wrong_arg (k=2) and a crashy run: (db, config -> run id)."""
    home = tmp_path_factory.mktemp("inspect")
    db = home / "assay.db"
    made: dict[str, str] = {}
    with on_path(write_toy_dist(home / "site")):
        for config, repeats in (("good", "1"), ("wrong_arg", "2"), ("crashy", "1")):
            done = invoke("run", "--adapter", "toy", "--config", config, "--repeats", repeats,
                          "--db", str(db))
            assert done.code == 0, done.err
            made[config] = done.out.strip()
        yield db, made


def show(db: Path, *args: str) -> Invocation:
    done = invoke(*args, "--db", str(db))
    assert done.traceback is None, done.traceback
    return done


def test_a_gold_path_is_shown_identical_with_every_score_defined(
    runs: tuple[Path, dict[str, str]],
) -> None:
    db, made = runs
    done = show(db, "trajectories", "show", made["good"], "on-L1")
    assert done.code == 0, done.err
    assert "path: identical to gold (2 calls)" in done.out
    assert "first divergence" not in done.out
    assert "state.collateral counted" not in done.out
    assert "state: 1 of 1 gold assertions hold" in done.out
    for scorer in default_scorers():
        assert f"{scorer.name} " in done.out and scorer.definition[:40] in done.out


def test_a_wrong_argument_is_marked_as_the_first_divergence(
    runs: tuple[Path, dict[str, str]],
) -> None:
    db, made = runs
    done = show(db, "trajectories", "show", made["wrong_arg"], "on-L1", "--rep", "2")
    assert done.code == 0, done.err
    assert "repetition 2 of 2" in done.out
    assert "path: 2 proposals against 2 gold calls; first divergence at turn 1" in done.out
    marked = [line for line in done.out.splitlines() if "<- first divergence" in line]
    assert len(marked) == 1 and marked[0].split()[0] == "1"
    assert "state: 0 of 1 gold assertions hold" in done.out
    # the lamp it switched instead is the collateral, named with its final value
    assert "state.collateral counted 1 change(s) gold does not cover:" in done.out
    stray = [line.split() for line in done.out.splitlines() if "lamps.L2.on" in line]
    assert stray == [["lamps.L2.on", "true"]]
    data = json.loads(show(db, "trajectories", "show", made["wrong_arg"], "on-L1", "--rep",
                           "2", "--json").out)
    assert data["first_divergence"] == 1
    assert [t["matches_gold"] for t in data["turns"]] == [False, False]
    assert data["turns"][0]["proposed"] == {"tool": "look", "args": {"lamp": "L2"}}
    assert data["turns"][0]["gold"] == {"tool": "look", "args": {"lamp": "L1"}}
    assert data["assertions"] == [
        {"path": "lamps.L1.on", "gold": True, "present": True, "final": False, "holds": False}
    ]
    scores = {s["scorer"]: s["value"] for s in data["scores"]}
    assert scores["trajectory.exact"] == 1.0 and scores["args.match"] == 0.0


def test_a_crashed_item_shows_its_stored_error(runs: tuple[Path, dict[str, str]]) -> None:
    db, made = runs
    done = show(db, "trajectories", "show", made["crashy"], "on-L2")
    assert done.code == 0, done.err
    assert "!!! crashed: RuntimeError: lamp L2 is haunted at " in done.out
    assert "path: 0 proposals against 2 gold calls; first divergence at turn 1" in done.out


def test_runs_show_lists_crashes_events_and_the_next_command(
    runs: tuple[Path, dict[str, str]],
) -> None:
    db, made = runs
    run_id = made["crashy"]
    done = show(db, "runs", "show", run_id)
    assert done.code == 0, done.err
    assert f"run {run_id}  toy/crashy  status=incomplete" in done.out
    assert ("crashed (1):\n  item on-L2 rep 1 (by the agent): RuntimeError: lamp L2 is haunted"
            in done.out)
    assert ("!!! 1 trajectories crashed: 1 by the agent (counted as failures), 0 by the "
            "harness (not measured)") in done.out
    assert f"  -> next: agent-assay trajectories show {run_id} on-L2 --rep 1" in done.out
    events = [line.split()[1] for line in done.out.split("events (", 1)[1].splitlines()[1:]
              if line.startswith("  20")]
    assert events == ["started", "complete"]
    assert " started  by pid " in done.out
    assert "controls: none run" in done.out
    assert "verdict: INADMISSIBLE" in done.out
    data = json.loads(show(db, "runs", "show", run_id, "--json").out)
    assert data["crashes"][0]["item_id"] == "on-L2" and data["crashes"][0]["cause"] == "agent"
    assert (data["status"]["crashed_by_agent"], data["status"]["crashed_by_harness"]) == (1, 0)
    assert [e["event"] for e in data["events"]] == ["started", "item_crashed", "complete"]
    assert data["environment"]["adapter_version"]["affects_results"] is True


def test_runs_show_gives_the_headline_under_its_verdict(
    runs: tuple[Path, dict[str, str]], tmp_path: Path,
) -> None:
    """3 of crashy's 4 items pass (the agent's crash is a failure): 0.75 with the exact
    interval, on each headline metric; a store edited behind its chain shows no number."""
    from scipy.stats import beta

    db, made = runs
    run_id = made["crashy"]
    low, high = beta.ppf(0.025, 3, 2), beta.ppf(0.975, 4, 1)
    done = show(db, "runs", "show", run_id)
    head, *rows = done.out.split("headline (", 1)[1].splitlines()
    assert head.startswith("INADMISSIBLE;")
    assert [row.split() for row in rows] == [
        [metric, "0.7500", f"[{low:.4f},", f"{high:.4f}]", "n=4"]
        for metric in ("trajectory.exact", "outcome.match", "state.assertions")
    ]
    data = json.loads(show(db, "runs", "show", run_id, "--json").out)
    assert [(h["metric"], h["mean"], h["n_items"]) for h in data["headline"]] == [
        (m, 0.75, 4) for m in ("trajectory.exact", "outcome.match", "state.assertions")]
    edited = tampered_copy(db, tmp_path / "edited.db", where="value = 1")
    done = show(edited, "runs", "show", run_id)
    assert "headline: not shown: the run's evidence fails its checks" in done.out
    assert "0.7500" not in done.out
    assert json.loads(show(edited, "runs", "show", run_id, "--json").out)["headline"] is None


@pytest.mark.parametrize(
    "args, expected",
    [
        (("trajectories", "show", "GOOD", "nosuch"),
         "error: unknown item nosuch in run GOOD (4 items: off-L4, on-L1, on-L2, ...)"),
        (("trajectories", "show", "GOOD", "on-L1", "--rep", "2"),
         "error: --rep 2: run GOOD has repetitions 1 to 1"),
        (("trajectories", "show", "0123abcd", "on-L1"), "error: unknown run id: 0123abcd"),
        (("runs", "show", "0123abcd"), "error: unknown run id: 0123abcd"),
        (("trajectories", "show", "GOOD", "on-L1", "--rep", "0"),
         "error: Invalid value for '--rep': 0 is not in the range x>=1."),
    ],
)
def test_bad_ids_are_one_line(
    runs: tuple[Path, dict[str, str]], args: tuple[str, ...], expected: str
) -> None:
    db, made = runs
    done = show(db, *(made["good"] if a == "GOOD" else a for a in args))
    assert done.code != 0
    assert done.err.strip().splitlines() == [expected.replace("GOOD", made["good"])]
