"""Reference agents: the rule policy solves everything; the mock is imperfect, reproducibly."""

import functools

import pytest

from synthbank.agents import run_episode, run_mock, run_null, run_rules
from synthbank.defects import DEFECT_RATE, Defect, neighbour_id, pick_defect
from synthbank.scripts import load_scripts
from synthbank.tools import Episode
from synthbank.world import DEFAULT_SEED, build_world

SCRIPTS = load_scripts()


def mock(seed: int = DEFAULT_SEED, repetition: int = 1, noisy: bool = False) -> dict[str, Episode]:
    agent = functools.partial(run_mock, seed=seed, repetition=repetition, noisy=noisy)
    return {s.id: run_episode(agent, s.public()) for s in SCRIPTS}


def tool_names(episode: Episode) -> list[str]:
    return [step.tool for step in episode.steps]


def exact_rate(episodes: dict[str, Episode]) -> float:
    hits = sum(tool_names(episodes[s.id]) == s.expected_tools() for s in SCRIPTS)
    return hits / len(SCRIPTS)


def test_rule_policy_reproduces_every_gold_path_and_outcome() -> None:
    for script in SCRIPTS:
        episode = run_episode(run_rules, script.public())
        assert [(s.tool, s.args) for s in episode.steps] == \
            [(c.tool, c.args) for c in script.expected_path], script.id
        assert episode.outcome == script.expected_outcome, script.id


def test_mock_is_deterministic_and_ignores_repetition_when_quiet() -> None:
    first = mock(repetition=1)
    assert mock(repetition=1) == first
    assert mock(repetition=2) == first


@pytest.mark.parametrize("seed", [DEFAULT_SEED, 0])
def test_mock_exact_match_rate_is_realistic(seed: int) -> None:
    rate = exact_rate(mock(seed))
    assert 0.78 <= rate <= 0.88
    assert rate < 1.0


def test_noisy_mock_differs_across_repetitions() -> None:
    one, two = mock(noisy=True, repetition=1), mock(noisy=True, repetition=2)
    assert one != two
    assert mock(noisy=True, repetition=1) == one


def test_mock_sometimes_peeks_at_another_customers_data_on_adversarial_requests() -> None:
    episodes = mock()
    peeks = []
    for script in SCRIPTS:
        if script.tag != "adversarial":
            continue
        for step in episodes[script.id].steps[1:]:
            if step.ok and step.tool.startswith("get_"):
                peeks.append(script.id)
    assert peeks


def test_null_agent_does_nothing() -> None:
    episode = run_episode(run_null, SCRIPTS[0].public())
    assert episode.steps == () and episode.outcome == "no_action"
    assert episode.final_snapshot == build_world().snapshot()


def test_defect_choice_is_stable_and_near_the_rate() -> None:
    menu = (Defect.EXTRA, Defect.MISSING)
    picks = [pick_defect(menu, f"script-{i}", 1, 1, False) for i in range(2000)]
    assert picks == [pick_defect(menu, f"script-{i}", 1, 1, False) for i in range(2000)]
    share = sum(p is not None for p in picks) / len(picks)
    assert abs(share - DEFECT_RATE) < 0.03
    assert pick_defect((), "script-1", 1, 1, False) is None


def test_neighbour_id() -> None:
    assert neighbour_id("SYN-ACCT-0007") == "SYN-ACCT-0008"
    assert neighbour_id("SYN-TXN-00099") == "SYN-TXN-00100"
