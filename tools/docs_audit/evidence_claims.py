"""The README's claims, written as code: artifact, extraction, and the value the README asserts.

`make evidence` recomputes each from reports/ and fails when one no longer holds. The
expected values live here, in code, and the check never rewrites them.
"""

from __future__ import annotations

import re
from typing import Any

from tools.docs_audit.evidence import Claim

BFCL_EARLY = [("0", "1"), ("145", "200"), ("128", "200"), ("0", "1")]
"""Per category (base, miss_func, miss_param, long_context): entries where acting in the
empty turn is accepted, of those with such a turn followed by calls."""



def controls_statuses(payloads: dict[str, Any]) -> dict[str, str]:
    return {
        kind: p["status"] + ("+allowed" if p.get("allowed_not_run") else "")
        for kind, p in payloads.items()
        if isinstance(p, dict)  # the document's own keys (schema, run_id) are no control
    }


def tag_count(text: str) -> tuple[int, int]:
    match = re.search(r": (\d+) items, (\d+) tags", text)
    assert match is not None
    return int(match.group(1)), int(match.group(2))


def tau_pass_hat(d: dict[str, Any]) -> list[float]:
    return [p["pass_hat_k"] for p in d["passk_curve"]["curves"]["tau.reward"]["points"]]


def tau_null(d: dict[str, Any]) -> tuple[int, int]:
    null = next(n for n in d["passk_curve"]["null_agents"] if n["metric"] == "tau.reward")
    return null["passes"], null["n_items"]


def statuses(d: dict[str, Any]) -> dict[str, str]:
    return {kind: payload["status"] for kind, payload in d.items() if isinstance(payload, dict)}


CLAIMS = [
    Claim(
        "the local model as judge fails judge_calibration on the labelled banking replies: "
        "it says yes to nearly everything",
        "judge/banking.json",
        lambda d: (d["outcome"]["status"], d["outcome"]["measured"]["counts"]["verdicts"]),
        ("FAILED", {"neither": 0, "no": 23, "yes": 205}),
    ),
    Claim(
        "the local model as judge fails on tau-bench's airline final messages too",
        "judge/tau_airline.json",
        lambda d: d["passed"],
        False,
    ),
    Claim(
        "inspect_evals' AgentDojo banking port, certified offline, is inadmissible: doing "
        "nothing passes four of its sixteen tasks",
        "inspect/case.json",
        lambda d: (d["verdict"], d["items"],
                   d["mock_passes"]["inspect.user_task_scorer.utility"]["count"]),
        ("INADMISSIBLE", 16, 4),
    ),
    Claim(
        "SmolLM2-135M at temperature 0.7 is inadmissible: five controls fail",
        "llm/controls_t07_json.txt",
        lambda d: sorted(k for k, s in statuses(d).items() if s == "FAILED"),
        ["identical_config", "mutation", "null_agent", "random_agent", "shuffled_gold"],
    ),
    Claim(
        "at temperature 0 the same model passes identical_config yet stays inadmissible",
        "llm/controls_t0_json.txt",
        lambda d: (
            statuses(d)["identical_config"],
            sorted(k for k, s in statuses(d).items() if s == "FAILED"),
        ),
        ("PASSED", ["mutation", "null_agent", "random_agent", "shuffled_gold"]),
    ),
    Claim(
        "at temperature 0.7 no item repeats its path across three attempts",
        "llm/report_t07_json.txt",
        lambda d: (d["consistency"]["value"], d["admissible"]),
        (0.0, False),
    ),
    Claim(
        "tau-bench's published pass^1..4 for gpt-4o airline are reproduced exactly",
        "tau_bench/report_json.txt",
        tau_pass_hat,
        [21 / 50, 41 / 150, 11 / 50, 1 / 5],
    ),
    Claim(
        "a do-nothing agent earns the airline reward on 19 of 50 tasks (0.38)",
        "tau_bench/report_json.txt",
        tau_null,
        (19, 50),
    ),
    Claim(
        "the imported run is inadmissible: null_agent and shuffled_gold fail",
        "tau_bench/controls.txt",
        lambda t: "reason: failed control(s): shuffled_gold, null_agent" in t,
        True,
    ),
    Claim(
        "the harness reproduces synthbank's own aggregate scores exactly",
        "banking/reproduction_detail.json",
        lambda d: all(row["match"] for row in d["aggregate"]),
        True,
    ),
    Claim(
        "every one of the 104 scripts agrees individually (0 mismatches)",
        "banking/reproduction_detail.json",
        lambda d: (d["scripts_compared"], len(d["per_script_mismatches"])),
        (104, 0),
    ),
    Claim(
        "the golden set has 104 items across 9 tags",
        "banking/suite_build.txt",
        tag_count,
        (104, 9),
    ),
    Claim(
        "report --by-tag on the mock run: 9 tag rows whose n add up to the 104 items",
        "banking/report_by_tag_json.txt",
        lambda d: (len(d["by_tag"]["tags"]), d["by_tag"]["n_total"],
                   d["by_tag"]["overlapping_pairs"]),
        (9, 104, 0),
    ),
    Claim(
        "trajectories show prints a crashed item's stored error before anything else",
        "banking/trajectory_show_crashed.txt",
        lambda t: t.splitlines()[2].startswith("!!! crashed: AgentUnreachable: "),
        True,
    ),
    Claim(
        "the page of a 10,000-trajectory run renders in under 10 s and under 20 MB",
        "bench/html.json",
        lambda d: (d["run"]["trajectories"], d["meets_targets"]),
        (10000, {"bytes": True, "every_slot_on_the_page": True, "seconds": True}),
    ),
    Claim(
        "the three committed HTML pages pass the headless-Chromium check",
        "html/report_check.txt",
        lambda t: t.splitlines()[-1],
        "ok: 3 pages",
    ),
    Claim(
        "every control PASSED on the mock run except judge_calibration and headline_agreement, "
        "NOT_RUN and allowed (nothing to judge: no judge, a generic headline)",
        "banking/controls_mock_json.txt",
        controls_statuses,
        {
            "scorer_selftest": "PASSED",
            "shuffled_gold": "PASSED",
            "state_check_bites": "PASSED",
            "null_agent": "PASSED",
            "random_agent": "PASSED",
            "identical_config": "PASSED",
            "positive_control": "PASSED",
            "mutation": "PASSED",
            "headline_agreement": "NOT_RUN+allowed",
            "judge_calibration": "NOT_RUN+allowed",
        },
    ),
    Claim(
        "the whole-suite mutation pass kills every operator (gate_mutation_score 1.0)",
        "banking/mutate_mock.txt",
        lambda t: "gate_mutation_score: 1.0000 -- 6 killed of 6 non-equivalent" in t,
        True,
    ),
    Claim(
        "corrupt_arg is seen only by args.match and tools.recall, by both detectors",
        "banking/mutate_mock.txt",
        lambda t: (
            "corrupt_arg: statistical: args.match, tools.recall; "
            "threshold: args.match, tools.recall" in t
        ),
        True,
    ),
    Claim(
        "in the shown corrupt_arg mutant exactly one turn differs",
        "banking/mutation_show.txt",
        lambda t: sum("<- differs" in line for line in t.splitlines()),
        1,
    ),
    Claim(
        "the mock's exact-path rate sits between 0.75 and 0.9, so it is not perfect",
        "banking/report_mock_json.txt",
        lambda d: 0.75 <= d["metrics"]["trajectory.exact"]["mean_of_k"] <= 0.9,
        True,
    ),
    Claim(
        "the deterministic mock repeats itself: consistency 1.0 over k=3",
        "banking/report_mock_json.txt",
        lambda d: (d["run"]["repeats"], d["consistency"]["value"]),
        (3, 1.0),
    ),
    Claim(
        "the mock run is admissible",
        "banking/report_mock_json.txt",
        lambda d: (d["admissible"], d["inadmissible_reasons"]),
        (True, []),
    ),
    Claim(
        "a k=1 run of a non-deterministic config has its headline refused, numbers still shown",
        "banking/report_noisy_k1.txt",
        lambda t: ("single run; not a measurement" in t, "trajectory.exact *" in t),
        (True, True),
    ),
    Claim(
        "comparing an admissible run with an uncertified one is refused with exit 4",
        "banking/compare_refused.json",
        lambda d: d["exit_code"],
        4,
    ),
    Claim(
        "a forced comparison stamps every line it prints after the reasons",
        "banking/compare_forced.txt",
        lambda t: all(
            "UNSOUND COMPARISON" in line
            for line in t.splitlines()
            if line and not line.startswith("  ")
        ),
        True,
    ),
    Claim(
        "a score edited with the trigger dropped and put back makes the report TAMPERED, "
        "with the row named and no number shown",
        "banking/report_tampered.txt",
        lambda t: (
            t.startswith("!!! TAMPERED"),
            sum("content does not match its digest" in line for line in t.splitlines()),
            "mean of k" in t,
        ),
        (True, 1, False),
    ),
    Claim(
        "verify names the edited row, the re-derived value, and the voided certificates",
        "banking/verify_tampered.txt",
        lambda t: (
            sum("content does not match its digest" in line for line in t.splitlines()),
            sum("stored 1.0, re-derived 0.0" in line for line in t.splitlines()),
            sum("void: scores changed since it was judged" in line for line in t.splitlines()),
        ),
        (1, 1, 10),
    ),
    Claim(
        "verify re-derives every score of the untouched demo run and finds nothing",
        "banking/verify_mock.txt",
        lambda t: t.splitlines()[-1].endswith("0 finding(s) -- nothing is off"),
        True,
    ),
    Claim(
        "the committed evidence bundle verifies without its database",
        "synthworld/verify_bundle.txt",
        lambda t: t.splitlines()[-1],
        "verify: 1 run(s), 0 finding(s) -- nothing is off",
    ),
    Claim(
        "the evidence chain adds at most 0.1 ms per trajectory to the hot path (interleaved "
        "medians against the last commit before it)",
        "bench/chain_cost.json",
        lambda d: (d["budget_ms"], d["chain_cost_ms"] <= d["budget_ms"]),
        (0.1, True),
    ),
    Claim(
        "make test passes on clean clones of HEAD in under 8 minutes on this 2-core machine "
        "(every run, not only the median)",
        "bench/test_suite.json",
        lambda d: (d["cores"], d["all_green"], d["max_wall_s"] < d["budget_s"] == 480),
        (2, True, True),
    ),
    Claim(
        "peak memory for 10,000 trajectories stays under 300 MB",
        "bench/core.json",
        lambda d: (d["harness_noop_agent"]["trajectories"], d["peak_rss_mb"] < 300),
        (10000, True),
    ),
    Claim(
        "random_agent's verdict on the SynthWorld auditor flips less across 20 control seeds "
        "under the pooled exact bound than under mean + 3 sd",
        "synthworld/random_agent_flips.json",
        lambda d: (d["control_seeds"], d["after"]["flip_rate"] < d["before"]["flip_rate"],
                   d["after"]["failed"]),
        (20, True, 0),
    ),
    Claim(
        "identical_config misses a 1-in-500 fault about as often as (1 - 1/500)^episodes "
        "predicts (within three standard errors over the trials)",
        "bench/rare_slip.json",
        lambda d: abs(d["measured_slip_rate"] - d["expected_slip_rate"])
        <= 3 * (d["expected_slip_rate"] * (1 - d["expected_slip_rate"]) / d["trials"]) ** 0.5,
        True,
    ),
    Claim(
        "the banking demo run stays ADMISSIBLE with twins that re-execute every repetition in "
        "fresh agent processes, stratified self-tests and the pooled chance bound",
        "banking/controls_mock.txt",
        lambda t: (t.splitlines()[-1],
                   "2 fresh executions of every repetition against the certified run" in t),
        ("2 NOT_RUN, 8 PASSED, run admissible", True),
    ),
    Claim(
        "valid-action: its baselines script, run as shipped, prints the figures its README "
        "publishes, and agent-assay's offline path reproduces every one of them",
        "verifiers/valid_action.json",
        lambda d: {n: (r["published"]["mean_reward"], r["reproduced"]["mean_reward"])
                   for n, r in d["baselines"]["rows"].items()},
        {"random": (0.0, 0.0), "naive_max_approval": (0.1875, 0.1875),
         "keyword_heuristic": (0.1875, 0.1875), "oracle_replay": (1.0, 1.0),
         "search_only": (0.0, 0.0)},
    ),
    Claim(
        "valid-action: through the rollout path every baseline, the oracle included, earns 0",
        "verifiers/valid_action.json",
        lambda d: {n: r["framework"]["mean_reward"] for n, r in d["baselines"]["rows"].items()},
        {"random": 0.0, "naive_max_approval": 0.0, "keyword_heuristic": 0.0,
         "oracle_replay": 0.0, "search_only": 0.0},
    ),
    Claim(
        "valid-action: positive_control fails through the framework, its first failing step "
        "a create tool that was not offered",
        "verifiers/controls_verifiers.txt",
        lambda t: (re.search(r"positive_control\s+FAILED", t) is not None,
                   re.search(r"first failing step: item \S+, step 1 \(create_\w+\): not offered",
                             " ".join(t.split())) is not None),
        (True, True),
    ),
    Claim(
        "valid-action: on its core functions the same oracle config passes every control but "
        "the state checks, which do not apply and are the one waiver its verdict names",
        "verifiers/controls_verifiers_offline.txt",
        lambda t: (next(line for line in t.splitlines() if ", run " in line),
                   "  waived: state_check_bites NOT_RUN (allowed by --allow-not-run)" in t),
        ("2 NOT_RUN, 8 PASSED, run ADMISSIBLE WITH WAIVERS", True),
    ),
    Claim(
        "BFCL multi-turn: bfcl.valid on gold's replay equals multi_turn_checker's verdict on "
        "every entry of base, miss_func, miss_param and long_context",
        "bfcl/reproduction.txt",
        lambda t: (sorted(line.split(":")[0] for line in t.splitlines()
                          if "reproduced to the digit" in line),
                   "NOT reproduced" in t),
        (["multi_turn_base", "multi_turn_long_context", "multi_turn_miss_func",
          "multi_turn_miss_param"], False),
    ),
    Claim(
        "BFCL multi-turn: a do-nothing agent passes BFCL's check on no entry of any category",
        "bfcl/findings.txt",
        lambda t: re.findall(r"do-nothing agent: bfcl.valid on (\d+) of (\d+)", t),
        [("0", "200")] * 4,
    ),
    Claim(
        "BFCL multi-turn: in all four categories gold's replays flag one call, in miss_func",
        "bfcl/findings.txt",
        lambda t: re.findall(r"failed calls in gold's replay: (\d+)", t),
        ["0", "1", "0", "0"],
    ),
    Claim(
        "BFCL multi-turn: acting in the turn whose possible answer is empty is accepted by "
        "BFCL's checker on most miss_func and miss_param entries",
        "bfcl/findings.txt",
        lambda t: re.findall(r"accepts (\d+) of (\d+) entries", t),
        BFCL_EARLY,
    ),
    Claim(
        "BFCL multi-turn: fed every proposed call, BFCL's checker accepts every skip_state "
        "mutant; bfcl.valid, fed the calls executed, accepts none",
        "bfcl/findings.txt",
        lambda t: re.findall(r"accepts (\d+), fed the calls executed \(bfcl.valid\) (\d+)", t),
        [("194", "0")] * 4,
    ),
    *(Claim(
        f"BFCL {category}: every control passes, the withheld-refusals band named as a waiver",
        f"bfcl/controls_{category}.txt",
        lambda t: (next(line for line in t.splitlines() if ", run " in line),
                   "waived: headline_agreement max_withheld" in t),
        ("1 NOT_RUN, 9 PASSED, run ADMISSIBLE WITH WAIVERS", True),
    ) for category in ("multi_turn_base", "multi_turn_miss_param", "multi_turn_long_context")),
    Claim(
        "BFCL multi_turn_miss_func: one possible answer calls a function its entry still "
        "withholds; BFCL's checker accepts it, and the positive control fails on that call",
        "bfcl/controls_multi_turn_miss_func.txt",
        lambda t: (next(line for line in t.splitlines() if ", run " in line),
                   re.search(r"positive_control\s+FAILED", t) is not None,
                   "first failing step: item multi_turn_miss_func_49, step 4 (tail): tail is "
                   "not offered in turn 2 (offered from turn 4)" in " ".join(t.split())),
        ("1 FAILED, 1 NOT_RUN, 8 PASSED, run INADMISSIBLE", True, True),
    ),
    Claim(
        "AgentDojo: on every suite our utility scorer gives gold's replay and the do-nothing "
        "agent exactly what AgentDojo's own pipeline gives them, task by task",
        "agentdojo/reproduction.txt",
        lambda t: [line.split(" (")[0] for line in t.splitlines()
                   if line.endswith(")") and ": " in line and not line.startswith(" ")],
        ["workspace: reproduced to the digit", "travel: reproduced to the digit",
         "banking: reproduced to the digit", "slack: reproduced to the digit"],
    ),
    Claim(
        "AgentDojo: doing nothing passes the own checks of banking's user tasks 5, 6, 8, 9 and "
        "10, and of no task of the other suites",
        "agentdojo/findings.txt",
        lambda t: (re.findall(r"doing nothing passes (\d+) of", t),
                   re.findall(r"^  (user_task_\d+):", t, re.MULTILINE)),
        (["0", "0", "5", "0"],
         ["user_task_5", "user_task_6", "user_task_8", "user_task_9", "user_task_10"]),
    ),
    Claim(
        "AgentDojo: for the do-nothing agent the security check reports no successful attack "
        "on any (user task, injection task) pair of any suite",
        "agentdojo/findings.txt",
        lambda t: re.findall(r"attack succeeded on (\d+) of (\d+)", t),
        [("0", "560"), ("0", "140"), ("0", "144"), ("0", "105")],
    ),
    Claim(
        "AgentDojo workspace: every control passes on the benchmark as it ships",
        "agentdojo/controls_workspace.txt",
        lambda t: next(line for line in t.splitlines() if ", run " in line),
        "1 NOT_RUN, 9 PASSED, run admissible",
    ),
    Claim(
        "AgentDojo slack: every control passes once a check that raises counts as a failed task",
        "agentdojo/controls_slack.txt",
        lambda t: next(line for line in t.splitlines() if ", run " in line),
        "1 NOT_RUN, 9 PASSED, run admissible",
    ),
    Claim(
        "AgentDojo travel: mutation is the one failed control, skip_state the one survivor",
        "agentdojo/controls_travel.txt",
        lambda t: (next(line for line in t.splitlines() if ", run " in line),
                   "survived: skip_state" in t),
        ("1 FAILED, 1 NOT_RUN, 8 PASSED, run INADMISSIBLE", True),
    ),
    Claim(
        "AgentDojo banking: the scorer self-test and headline agreement fail, the latter naming "
        "the tasks doing nothing passes",
        "agentdojo/controls_banking.txt",
        lambda t: (t.splitlines()[-2].strip(),
                   "do_nothing 5 (user_task_10, user_task_5, user_task_6, user_task_8, "
                   "user_task_9)" in " ".join(t.split())),
        ("reason: failed control(s): scorer_selftest, headline_agreement", True),
    ),
    Claim(
        "AgentDojo banking security variant: AgentDojo's own ground truth is no more secure "
        "than doing nothing, random calls or deranged gold",
        "agentdojo/controls_banking_security.txt",
        lambda t: t.splitlines()[-2].strip(),
        "reason: failed control(s): scorer_selftest, shuffled_gold, null_agent, random_agent, "
        "headline_agreement",
    ),
    Claim(
        "AgentDojo banking: a gold call made twice (a payment included) leaves the utility "
        "check at its baseline",
        "agentdojo/mutation_banking.txt",
        lambda t: next(line for line in t.splitlines()
                       if line.startswith("agentdojo.utility")).split()[1:],
        ["1.0000", "0.3125", "0.8750", "1.0000", "1.0000", "1.0000", "0.3125"],
    ),
]
