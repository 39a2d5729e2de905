"""Golden scripts: the shipped set is well formed and every expected path really works."""

from collections import Counter
from pathlib import Path

import pytest

from synthbank.authoring import author_scripts
from synthbank.scripts import PublicRequest, Script, ScriptError, load_scripts
from synthbank.tools import replay
from synthbank.world import DEFAULT_SEED, build_world

SCRIPTS = load_scripts()
INITIAL = build_world().snapshot()
STATE_CHANGING = ("resolved", "refused", "escalated")


def test_shipped_set_size_and_tags() -> None:
    tags = Counter(s.tag for s in SCRIPTS)
    assert len(SCRIPTS) >= 100
    assert len(tags) >= 8
    assert tags["card_lost_stolen"] >= 20
    assert tags["adversarial"] >= 15


def test_sorted_unique_and_deterministic() -> None:
    ids = [s.id for s in SCRIPTS]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert load_scripts() == SCRIPTS


def test_public_view_hides_the_answer() -> None:
    script = SCRIPTS[0]
    assert script.public() == PublicRequest(script.id, script.caller, script.request)


def test_authoring_is_deterministic() -> None:
    assert author_scripts() == author_scripts()


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s.id)
def test_gold_path_replays_cleanly(script: Script) -> None:
    episode = replay(DEFAULT_SEED, script.caller,
                     [(call.tool, call.args) for call in script.expected_path])
    assert [s.error for s in episode.steps if not s.ok] == []
    assert episode.outcome == script.expected_outcome
    failed = [a.path for a in script.state_assertions if not a.holds(episode.final_snapshot)]
    assert failed == []
    if script.expected_outcome in STATE_CHANGING:
        assert script.state_assertions
        assert not all(a.holds(INITIAL) for a in script.state_assertions)


# --- malformed files --------------------------------------------------------------------

GOOD = """\
id: balance_inquiry-test-001
tag: balance_inquiry
caller: SYN-CUST-0001
request: What's my balance?
expected_path:
- tool: get_customer
  args:
    customer_id: SYN-CUST-0001
expected_outcome: informed
state_assertions: []
"""


def write(root: Path, text: str, name: str = "balance_inquiry-test-001.yaml",
          tag: str = "balance_inquiry") -> Path:
    path = root / tag / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def error_for(root: Path) -> str:
    with pytest.raises(ScriptError) as caught:
        load_scripts(root)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_good_file_loads(tmp_path: Path) -> None:
    write(tmp_path, GOOD)
    [script] = load_scripts(tmp_path)
    assert script.expected_tools() == ["get_customer"]


def test_yaml_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("expected_outcome: informed",
                                        "expected_outcome: [informed"))
    assert error_for(tmp_path).startswith(f"{path}:10: YAML syntax error")


def test_missing_field_names_file_and_field(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("caller: SYN-CUST-0001\n", ""))
    assert error_for(tmp_path) == f"{path}: field 'caller': missing"


def test_wrong_field_names_file_line_and_field(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("expected_outcome: informed", "expected_outcome: 7"))
    message = error_for(tmp_path)
    assert message.startswith(f"{path}:9: field 'expected_outcome'")


def test_unknown_tool_points_at_the_step(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("- tool: get_customer", "- tool: open_vault"))
    assert error_for(tmp_path) == \
        f"{path}:6: field 'expected_path.0.tool': unknown tool 'open_vault'"


def test_path_must_start_by_verifying_the_caller(tmp_path: Path) -> None:
    write(tmp_path, GOOD.replace("customer_id: SYN-CUST-0001", "customer_id: SYN-CUST-0002"))
    assert "must start by verifying the caller" in error_for(tmp_path)


def test_tag_must_match_directory(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD, tag="dispute")
    assert error_for(tmp_path).startswith(f"{path}:2: field 'tag'")


def test_top_level_must_be_a_mapping(tmp_path: Path) -> None:
    path = write(tmp_path, "- just\n- a list\n")
    assert error_for(tmp_path) == f"{path}: top level must be a mapping of script fields"


def test_duplicate_id_names_both_files(tmp_path: Path) -> None:
    first = write(tmp_path, GOOD)
    second = write(tmp_path, GOOD, name="balance_inquiry-copy.yaml")
    message = error_for(tmp_path)
    assert str(first) in message and str(second) in message and "duplicate" in message
