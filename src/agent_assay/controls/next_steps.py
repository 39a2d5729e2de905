"""What a user can do about a control that did not pass: one sentence per kind and status.

A verdict that only says FAILED leaves the reader to guess whether the agent, the suite,
the scorers or the bands are at fault. Each line below names the likeliest remedy, and
none of them is "loosen the band": a band moves only with a derivation beside it.
"""

from __future__ import annotations

from agent_assay.adapters.loaded import NO_REPLAY

FAILED: dict[str, str] = {
    "scorer_selftest": (
        "a scorer stayed green on its own defect: fix the scorer (or its plant_defect) "
        "before trusting any number it produced"
    ),
    "shuffled_gold": (
        "a headline barely moves when gold is deranged: the suite's items are too alike or "
        "the metric ignores gold; add items that differ, or drop the metric from the headline"
    ),
    "state_check_bites": (
        "the state scorers miss a changed world: assert the fields that matter in gold, and "
        "check the scorer reads the final state"
    ),
    "null_agent": (
        "doing nothing scores close to the agent: add items whose correct answer changes the "
        "world, or report the margin over the null agent instead of the raw score"
    ),
    "random_agent": (
        "the agent is not clearly better than well-formed random calls: more items narrow "
        "chance's bound; if it still fails, the agent is not doing the task"
    ),
    "identical_config": (
        "the config is not deterministic: seed every random choice from (seed, item, "
        "repetition), drop in-process caches, or stop declaring it deterministic and run k>1"
    ),
    "positive_control": (
        "gold replayed through the environment does not reach the ceiling: the environment, "
        "the gold or a scorer is broken; check the failed tool calls it lists"
    ),
    "mutation": (
        "a planted defect class went unseen: add items the operator can alter (more items "
        "raise the detector's power; check-adapter says how many), or a scorer that sees it"
    ),
    "headline_agreement": (
        "a system headline scorer disagrees with the generic metric it stands for on "
        "trajectories whose answer is known: read the items it lists, fix the scorer (or its "
        "refines declaration), or put the generic metric it contradicts in the headline"
    ),
    "judge_calibration": (
        "the judge disagrees with people's labels or moves with position or length: read the "
        "pairs it names, then use another judge model (of another family) or reword the "
        "judged questions and label them again; a judged metric stays out of any claim until "
        "then"
    ),
}

NOT_RUN_CAPABILITY = (
    "give the system the episodes capability (open_episode, tools, baseline_snapshot, "
    "argument_pools) or replay, then run the controls again"
)


def next_step(kind: str, status: str, reason: str) -> str:
    """The remedy for one outcome; empty for a PASSED one."""
    if status == "FAILED":
        return FAILED.get(kind, "read what it measured, fix the cause, run the controls again")
    if status == "ERROR":
        return "the control raised: fix the error it names, then run the controls again"
    if status == "NOT_RUN":
        if reason == NO_REPLAY or "capability" in reason or "declares no" in reason:
            return NOT_RUN_CAPABILITY
        return (
            "the verdict is incomplete: make the control applicable, or, as the one "
            "certifying, accept the reason with --allow-not-run "
            f"{kind} (or a --bands file of yours setting allow_not_applicable: true)"
        )
    return ""
