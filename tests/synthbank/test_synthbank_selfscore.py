"""The system's own scorer on hand-computed cases, and the evaluate command end to end."""

import json
from pathlib import Path

import pytest

from synthbank.evaluate import main
from synthbank.money import format_amount, parse_amounts
from synthbank.scripts import ExpectedCall, Script
from synthbank.selfscore import aggregate_scores, lcs_length, lcs_ratio, score_script
from synthbank.tools import Episode, Step


@pytest.mark.parametrize(("a", "b", "length"), [
    ("", "", 0),
    ("abc", "", 0),
    ("abc", "abc", 3),
    ("abcd", "acd", 3),
    ("abcbdab", "bdcaba", 4),
    ("xyz", "abc", 0),
])
def test_lcs_length(a: str, b: str, length: int) -> None:
    assert lcs_length(list(a), list(b)) == length


def test_lcs_ratio() -> None:
    assert lcs_ratio([], []) == 1.0
    assert lcs_ratio(["a"], []) == 0.0
    assert lcs_ratio(list("abcd"), list("acd")) == pytest.approx(6 / 7)


def _script(*tools: str, outcome: str = "resolved") -> Script:
    calls = tuple(ExpectedCall(tool, {}) for tool in tools)
    return Script("t-x-001", "t", "SYN-CUST-0001", "text", calls, outcome, ())


def _episode(*tools: str, outcome: str) -> Episode:
    return Episode(tuple(Step(t, {}, True, {}, None) for t in tools), outcome, {})


def test_score_script_hand_computed() -> None:
    script = _script("get_customer", "get_card", "block_card")
    episode = _episode("get_customer", "get_account", "block_card", "block_card",
                       outcome="resolved")
    score = score_script(script, episode)
    assert not score.exact_match
    assert score.lcs_ratio == pytest.approx(4 / 7)
    assert score.outcome_match and score.actual_outcome == "resolved"
    assert score.actual_path == ["get_customer", "get_account", "block_card", "block_card"]
    assert score.wrong_tool_calls == 1
    assert score.missing_tool_calls == 1


def test_aggregate_hand_computed() -> None:
    script = _script("get_customer", "get_card")
    perfect = score_script(script, _episode("get_customer", "get_card", outcome="resolved"))
    partial = score_script(script, _episode("get_customer", outcome="informed"))
    assert aggregate_scores([perfect, partial]) == {
        "n": 2,
        "trajectory_accuracy": 0.5,
        "mean_lcs_ratio": pytest.approx((1.0 + 2 / 3) / 2),
        "outcome_accuracy": 0.5,
        "wrong_tool_calls_total": 0,
        "missing_tool_calls_total": 1,
    }
    with pytest.raises(ValueError):
        aggregate_scores([])


def test_money_round_trip() -> None:
    for cents in (0, 5, 100, 4_210, 125_000, 123_456_78):
        assert parse_amounts(f"pay {format_amount(cents)} now") == [cents]


def test_evaluate_writes_sorted_json(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    assert main(["--out", str(out), "--seed", "20260902"]) == 0
    text = out.read_text(encoding="utf-8")
    report = json.loads(text)
    assert text == json.dumps(report, sort_keys=True, indent=2) + "\n"
    assert (report["system"], report["version"], report["seed"]) == ("synthbank", "1.0.0",
                                                                     20260902)
    aggregate = report["aggregate"]
    assert aggregate["n"] == len(report["scripts"]) >= 100
    assert 0.78 <= aggregate["trajectory_accuracy"] <= 0.88
    exact = [s["exact_match"] for s in report["scripts"].values()]
    assert aggregate["trajectory_accuracy"] == sum(exact) / len(exact)


def test_evaluate_reports_bad_scripts_in_one_line(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "scripts" / "dispute" / "broken.yaml"
    bad.parent.mkdir(parents=True)
    bad.write_text("id: [\n", encoding="utf-8")
    assert main(["--out", str(tmp_path / "r.json"), "--scripts", str(tmp_path / "scripts")]) == 2
    assert str(bad) in capsys.readouterr().err
