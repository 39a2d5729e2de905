"""The episode runs what BFCL's executor runs: a withheld method is executed (the world and
BFCL's verdict stay BFCL's) but its step fails with the turn that offers it; a name that is
no method of the entry's instances is refused unexecuted."""

from __future__ import annotations

from tests.bfcl.support import need_bfcl

need_bfcl()

from agent_assay.adapters.loaded import run_calls  # noqa: E402
from agent_assay.adapters.system import ToolOutcome  # noqa: E402
from agent_assay_bundled.bfcl.entries import entries  # noqa: E402
from agent_assay_bundled.bfcl.episode import BfclEpisode  # noqa: E402
from agent_assay_bundled.bfcl.scoring import BfclValid  # noqa: E402
from agent_assay_bundled.bfcl.source import parse  # noqa: E402
from agent_assay_bundled.bfcl.system import BfclSystem  # noqa: E402

ENTRY = "multi_turn_miss_func_49"  # withholds wc, tail and cat until its fourth turn


def _episode() -> BfclEpisode:
    return BfclEpisode(entries("multi_turn_miss_func")[ENTRY])


def test_a_withheld_method_runs_but_its_step_fails_naming_the_turn_that_offers_it() -> None:
    episode = _episode()
    listed = episode.call("ls", {})
    assert listed.ok
    name = next(n for n in listed.result["current_directory_content"] if n.endswith(".txt"))
    early = episode.call("tail", {"file_name": name})
    assert not early.ok and early.result is not None  # executed: BFCL's executor would
    assert early.error == ("tail is not offered in turn 1 (offered from turn 4); "
                           "BFCL's executor ran it anyway")
    while episode.turn < 3:
        assert episode.next_turn() is not None
    assert episode.call("tail", {"file_name": name}) == ToolOutcome(True, early.result)
    episode.finish()


def test_a_name_that_is_no_method_is_refused_unexecuted() -> None:
    episode = _episode()
    assert episode.call("open", {"file": "x"}).error == "unknown tool: open"
    assert episode.call("open", {"file": "x"}).result is None
    episode.finish()


def test_golds_early_call_is_bfcls_valid_yet_a_failed_step() -> None:
    system = BfclSystem()
    suite = system.build_suite_for(parse("multi_turn_miss_func"))
    item = next(i for i in suite.items if i.item_id == ENTRY)
    replayed = run_calls(system, item.public(), None, item.gold.path, seed=0, repetition=1)
    failed = [s for s in replayed.steps if not s.ok]
    assert [s.call.tool for s in failed] == ["tail"]
    assert (BfclValid().verdict(item.gold, replayed) or {}).get("valid") is True
