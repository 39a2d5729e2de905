"""Mutant sets that are wrong are refused in one line naming the file, the line and the key.

Each case below was accepted and then came back EQUIVALENT, with no score, or with a
threshold nobody meant (a boolean read as 1.0, a NaN); tags that match no item can only be
checked once the run is known. `mutate` finds its built-in set from any directory, and
takes --config with --run only when it is the run's.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent_assay.errors import AssayError
from agent_assay.mutation.config import BUILTIN, MutantSet, OperatorSpec, load_mutants
from agent_assay.mutation.engine import run_pass
from agent_assay.selection import Selection
from agent_assay.store import Store, open_store
from tests.mutation.test_mutation import baseline_run
from tests.support.invoke import invoke
from tests.support.refusals import one_line
from tests.support.toy import RichToyAdapter
from tests.support.toyrun import ROOT

SWAP = "operators:\n  - operator: swap_call_order\n"

CASES: dict[str, tuple[str, int, str]] = {
    "bogus_target": ("operators:\n  - operator: drop_tool_call\n    params: {target: first}\n", 3,
                     "operators[0].params.target must be one of mutating, last, got 'first'"),
    "unknown_param": (SWAP + "  - operator: corrupt_arg\n    params:\n      argz: [a]\n", 5,
                      "unknown key 'argz' in the params of operators[1] (corrupt_arg) "
                      "(known: args)"),
    "param_of_none": ("operators:\n  - operator: skip_state\n    params: {target: mutating}\n", 3,
                      "unknown key 'target' in the params of operators[0] (skip_state) "
                      "(known: none)"),
    "unknown_entry_key": (SWAP + "    tag: [on]\n", 3,
                          "unknown key 'tag' in operators[0] (known: label, operator, params, "
                          "tags)"),
    "unknown_top_key": (SWAP + "detectors: {alpha: 0.1}\n", 3,
                        "unknown key 'detectors' in a mutant set (known: detector, operators)"),
    "unknown_detector_key": (SWAP + "detector:\n  threshold: 0.1\n", 4,
                             "unknown key 'threshold' in detector (known: alpha, "
                             "default_threshold, thresholds)"),
    "no_operators": ("operators: []\n", 1, "operators is empty: name at least one"),
    "threshold_zero": (SWAP + "detector:\n  default_threshold: 0\n", 4,
                       "detector.default_threshold must be in (0, 1], got 0"),
    "threshold_above_one": (SWAP + "detector:\n  thresholds:\n    tools.redundant: 1.5\n", 5,
                            "detector.thresholds['tools.redundant'] must be in (0, 1], got 1.5"),
    "threshold_nan": (SWAP + "detector:\n  default_threshold: .nan\n", 4,
                      "detector.default_threshold must be finite, got nan"),
    "alpha_inf": (SWAP + "detector:\n  alpha: .inf\n", 4, "detector.alpha must be finite, got inf"),
    "threshold_bool": (SWAP + "detector:\n  default_threshold: true\n", 4,
                       "detector.default_threshold must be a number, got True"),
    "threshold_text": (SWAP + "detector:\n  default_threshold: '0.1'\n", 4,
                       "detector.default_threshold must be a number, got '0.1'"),
    "tag_read_as_bool": (SWAP + "    tags: [on]\n", 3,
                         "operators[0].tags must be a list of names: an entry must be a string, "
                         "got True (quote it: YAML reads yes/no/on/off as booleans)"),
    "three_values": ("operators:\n  - operator: flip_arg\n    params: {arg: d, values: [a, b, c]}"
                     "\n", 3, "operators[0].params.values must be a list of the two values"),
    "value_nan": ("operators:\n  - operator: set_arg\n    params: {arg: x, value: .nan}\n", 3,
                  "operators[0].params.value must be finite, got nan"),
    "no_args": ("operators:\n  - operator: corrupt_arg\n    params: {args: []}\n", 3,
                "operators[0].params.args must be a non-empty list of names, got []"),
    "label_number": (SWAP + "    label: 5\n", 3, "operators[0].label must be a string, got 5"),
    "operator_list": ("operators:\n  - operator: [swap_call_order]\n", 2,
                      "operators[0] must name one of drop_tool_call, "),
    "repeated": (SWAP + "  - operator: swap_call_order\n", 3,
                 "operators[1] repeats swap_call_order; give each use of an operator its own "
                 "label"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_wrong_mutant_set_is_one_line_naming_line_and_key(tmp_path: Path, name: str) -> None:
    text, line, message = CASES[name]
    path = tmp_path / "mutants.yaml"
    path.write_text(text)
    with pytest.raises(AssayError) as refused:
        load_mutants(path)
    one_line(path, line, str(refused.value), message)


def test_the_built_in_set_and_the_example_set_load() -> None:
    built_in = load_mutants(BUILTIN)
    assert built_in.operators and built_in.source == "the built-in mutant set"
    example = ROOT / "configs" / "mutants-synthworld.yaml"
    assert load_mutants(example).source == str(example)


# ---- tags, once the run is known -----------------------------------------------------------
def tagged(*tags: str) -> MutantSet:
    return MutantSet(
        (OperatorSpec("swap_call_order"), OperatorSpec("drop_tool_call", tags=tags,
                                                       where="m.yaml:4")),
        {}, 0.05, 0.05, "m.yaml",
    )


def test_operator_tags_that_match_no_item_are_refused(store: Store) -> None:
    run = baseline_run(store)
    with pytest.raises(AssayError) as refused:
        run_pass(store, RichToyAdapter(), run, tagged("of"))
    assert str(refused.value) == (
        f"m.yaml:4: operators[1] tags ['of'] match no item of the {len(run.item_ids)} mutated "
        f"in run {run.run_id} (tags: look, off, on)"
    )
    with pytest.raises(AssayError, match=r"operators\[1\] tags \['on'\] match no item of the 4 "):
        run_pass(store, RichToyAdapter(), run, tagged("on"),
                 selection=Selection(tags=("look",)))
    assert run_pass(store, RichToyAdapter(), run, tagged("of", "on")).results[1].altered


def test_a_tag_that_selects_no_item_of_the_run_is_refused(store: Store) -> None:
    run = baseline_run(store)
    with pytest.raises(AssayError, match=f"^no item of run {run.run_id} carries tag\\(s\\): nope$"):
        run_pass(store, RichToyAdapter(), run, tagged(), selection=Selection(tags=("nope",)))


# ---- through the CLI -----------------------------------------------------------------------
@pytest.fixture
def db(tmp_path: Path, toy_db: tuple[Path, str]) -> Path:
    path = tmp_path / "assay.db"
    shutil.copyfile(toy_db[0], path)
    return path


def passes(db: Path, run_id: str) -> int:
    return len(open_store(str(db)).latest_mutation_pass(run_id))


def test_mutate_finds_its_built_in_set_from_any_directory(
    tmp_path: Path, db: Path, toy_db: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    got = invoke("mutate", "--adapter", "toy", "--run", toy_db[1], "--db", str(db))
    assert got.traceback is None and got.code == 0, got.err
    assert "operators from the built-in mutant set" in got.out
    assert "built-in mutant set" in invoke("mutate", "--help").out


def test_mutate_refuses_a_directory_and_wrong_tags_storing_nothing(
    tmp_path: Path, db: Path, toy_db: tuple[Path, str]
) -> None:
    run_id = toy_db[1]
    got = invoke("mutate", "--adapter", "toy", "--run", run_id, "--operators", str(tmp_path),
                 "--db", str(db))
    assert got.traceback is None, got.traceback
    assert got.err == f"error: {tmp_path}: mutant set is a directory, not a file\n"
    mutants = tmp_path / "m.yaml"
    mutants.write_text(SWAP + "  - operator: drop_tool_call\n    tags: [nope]\n")
    got = invoke("mutate", "--adapter", "toy", "--run", run_id, "--operators", str(mutants),
                 "--db", str(db))
    assert got.err == (f"error: {mutants}:3: operators[1] tags ['nope'] match no item of the 4 "
                       f"mutated in run {run_id} (tags: off, on)\n")
    assert got.code != 0 and passes(db, run_id) == 0


def test_mutate_takes_config_with_run_only_when_it_is_the_runs(
    db: Path, toy_db: tuple[Path, str]
) -> None:
    run_id = toy_db[1]
    got = invoke("mutate", "--adapter", "toy", "--config", "bad", "--run", run_id, "--db", str(db))
    assert got.traceback is None, got.traceback
    assert got.err == (f"error: --config bad does not match run {run_id}'s config good; drop "
                       "--config or pass the matching one\n")
    assert got.code != 0 and passes(db, run_id) == 0
    got = invoke("mutate", "--adapter", "toy", "--config", "good", "--run", run_id, "--db", str(db))
    assert got.code == 0, got.err


@pytest.mark.parametrize(("body", "said"), [
    (SWAP + "    label: \"\\udc80\"\n",
     "{file}:3: mutant set holds a lone surrogate '\\udc80' (an escape no UTF-8 text can hold)"),
    (SWAP + "detector:\n  thresholds:\n    trajectory.exactt: 0.1\n",
     "{file}:5: detector.thresholds names metric 'trajectory.exactt', which toy does not "
     "score (known: trajectory.exact, trajectory.lcs, outcome.match, "),
])
def test_mutate_refuses_what_it_cannot_store_or_use_storing_nothing(
    tmp_path: Path, db: Path, toy_db: tuple[Path, str], body: str, said: str
) -> None:
    """A label with a lone surrogate failed with a traceback when the pass was stored; a
    threshold for a metric the system does not score was ignored, and the metric meant
    was judged at the default threshold."""
    mutants = tmp_path / "m.yaml"
    mutants.write_text(body)
    got = invoke("mutate", "--adapter", "toy", "--run", toy_db[1], "--operators",
                 str(mutants), "--db", str(db))
    assert got.traceback is None, got.traceback
    assert got.code == 1 and got.err.startswith("error: " + said.format(file=mutants)), got.err
    assert len(got.err.splitlines()) == 1 and passes(db, toy_db[1]) == 0


@pytest.mark.parametrize("limit", ["0", "-3"])
def test_mutate_refuses_a_limit_below_one_before_any_run_is_made(
    tmp_path: Path, db: Path, toy_db: tuple[Path, str], limit: str
) -> None:
    """--limit 0 mutated every item (and -3 all but three); without --run it is refused
    before a run is made."""
    got = invoke("mutate", "--adapter", "toy", "--run", toy_db[1], "--limit", limit,
                 "--db", str(db))
    assert got.traceback is None and got.code == 1, got.err
    assert got.err == f"error: --limit must be at least 1, got {limit}\n"
    assert passes(db, toy_db[1]) == 0
    fresh = tmp_path / "fresh.db"
    got = invoke("mutate", "--adapter", "toy", "--config", "good", "--limit", limit,
                 "--db", str(fresh))
    assert got.code == 1 and (not fresh.exists() or not open_store(str(fresh)).run_ids())
