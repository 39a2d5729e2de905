"""tools/cases/reproduce_bfcl.py: our verdict against BFCL's, entry by entry; "reproduced to the
digit" only when every entry matches, and a mismatch printed when one does not."""

from __future__ import annotations

from tests.bfcl.support import need_bfcl
from tools.cases import reproduce_bfcl as reproduce

need_bfcl()


def test_a_category_whose_entries_all_match_is_reproduced_to_the_digit() -> None:
    rows = [reproduce.Row("e_0", (True, None), (True, None)),
            reproduce.Row("e_1", (False, "multi_turn:x"), (False, "multi_turn:x"))]
    lines, matched = reproduce.report("cat", rows)
    assert matched and lines[-1].startswith("cat: reproduced to the digit: bfcl.valid 1/2")


def test_one_differing_entry_is_printed_and_the_category_is_not_reproduced() -> None:
    rows = [reproduce.Row("e_0", (True, None), (True, None)),
            reproduce.Row("e_1", (True, None), (False, "multi_turn:instance_state_mismatch"))]
    lines, matched = reproduce.report("cat", rows)
    assert not matched
    assert lines[1] == ("e_1\tours: valid\tbfcl: invalid (multi_turn:instance_state_mismatch)"
                        "\tMISMATCH")
    assert lines[-1].startswith("cat: NOT reproduced: 1 of 2 entries differ (first: e_1)")
    assert not any("reproduced to the digit" in line for line in lines)


def test_bfcls_verdict_is_its_checkers_on_the_answers_given() -> None:
    from agent_assay_bundled.bfcl.entries import entries, ground_truth

    entry = entries("multi_turn_base")["multi_turn_base_0"]
    truth = ground_truth("multi_turn_base")["multi_turn_base_0"]
    assert reproduce.bfcl_verdict(entry, truth) == (True, None)
    wrong = [turn[:-1] if index == 0 else turn for index, turn in enumerate(truth)]
    assert reproduce.bfcl_verdict(entry, wrong) == (True, None)  # both sides lack the mv
