"""`agent-assay check-adapter NAME`: what an adapter author needs to know before a first run.

Every missing or mis-typed required member; the facts and which capabilities were
found (and which controls will therefore be NOT_RUN); the suite built twice to the same
hash; gold replayed once, and whether the oracle reaches the ceiling on every headline
metric; one item through the agent; and how many items the mutation control's
statistical detector needs on this suite to be able to kill a mutant at all.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agent_assay.adapters.judged import judging
from agent_assay.adapters.loaded import LoadedSystem, load_system, member_problems
from agent_assay.adapters.pure_suite import drift
from agent_assay.adapters.system import LearnsFacts
from agent_assay.controls.bands import load_bands
from agent_assay.errors import AssayError
from agent_assay.hashing import stable_seed
from agent_assay.hosting.jobs import Task, act
from agent_assay.llm.configs import is_model_config
from agent_assay.model import Config, Suite
from agent_assay.scoring.base import passes
from agent_assay.scoring.registry import score_all

Level = Literal["ok", "warn", "FAIL"]
REPLAY_CONTROLS = "positive_control, random_agent, state_check_bites and mutation"


@dataclass(frozen=True)
class CheckLine:
    level: Level
    what: str
    detail: str

    def line(self) -> str:
        return f"{self.level:<4} {self.what}: {self.detail}"


@dataclass
class AdapterCheck:
    name: str
    lines: list[CheckLine] = field(default_factory=list)

    def add(self, level: Level, what: str, detail: str) -> None:
        self.lines.append(CheckLine(level, what, detail))

    @property
    def ok(self) -> bool:
        return all(line.level != "FAIL" for line in self.lines)


def check_adapter(
    raw: object, name: str, *, config: str | None = None, source: Path | None = None
) -> AdapterCheck:
    out = AdapterCheck(name)
    problems = member_problems(raw, name)
    if problems:
        for problem in problems:
            out.add("FAIL", "required members", problem)
        return out
    out.add("ok", "required members", "name, version, build_suite, configs, run_item")
    system = load_system(raw, name)
    _facts(system, out)
    _capabilities(system, out)
    suite = _suite(system, source, out)
    if suite is None:
        return out
    system.prepare(suite)
    if isinstance(system.raw, LearnsFacts):
        _facts(system, out, learned=True)
    chosen = _config(system, config, out)
    _oracle(system, suite, out)
    if chosen is not None:
        _one_item(system, suite, chosen, out)
    _mutation_power(system, suite, out)
    return out


def _facts(system: LoadedSystem, out: AdapterCheck, *, learned: bool = False) -> None:
    """The facts in force, checked; `learned`: those a system learned from its suite, which
    the controls will use."""
    facts = system.facts
    names = Counter(s.name for s in system.scorers())
    clashes = sorted(n for n, count in names.items() if count > 1)
    prefix = "learned " if learned else ""
    if clashes:
        out.add("FAIL", prefix + "scorers", f"names used twice: {', '.join(clashes)} (a "
                "system's scorer may not shadow a generic one)")
    unknown = sorted(set(facts.headline_metrics) - set(names))
    if unknown:
        out.add("FAIL", prefix + "headline", f"no scorer produces {', '.join(unknown)}")
    else:
        deterministic = ", ".join(sorted(facts.deterministic_configs)) or "none"
        out.add("ok", prefix + "facts", f"headline {', '.join(facts.headline_metrics)}; "
                f"{len(facts.mutating_tools)} mutating tool(s); {len(names)} scorers; "
                f"deterministic configs: {deterministic}")
    try:
        bands = load_bands(facts.bands)
    except AssayError as exc:
        out.add("FAIL", prefix + "bands", str(exc))
        return
    source = _shown(facts.bands) if facts.bands else "the harness's defaults"
    declared = ", ".join(sorted(bands.not_applicable)) or "none"
    out.add("ok", prefix + "bands", f"{source}; declared not applicable: {declared}")


def _shown(path: Path) -> str:
    """A bands file under the working directory by its relative path, so a recorded check
    reads the same on every checkout; anywhere else (an installed package), in full."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _capabilities(system: LoadedSystem, out: AdapterCheck) -> None:
    found = []
    if system.episodes is not None:
        found.append("episodes (replay, a do-nothing agent and the model agent follow)")
    elif system.replay_view() is not None:
        found.append("replay")
    if system.recorder is not None:
        found.append("recording without executing")
    if system.model_prompt is not None:
        found.append("a model prompt")
    judged = judging(system.raw)
    if judged is not None:
        found.append(f"judged answers (judge {judged.judge_model.model}, braking "
                     f"{judged.judge_brakes}: judge_calibration will measure it)")
    out.add("ok", "capabilities", "; ".join(found) or "none beyond the five members")
    if system.replay_view() is None:
        out.add("warn", "replay", f"none declared: {REPLAY_CONTROLS} will be NOT_RUN (declare "
                "episodes or replay, or allow them with --allow-not-run)")
    if not system.null_agents():
        out.add("warn", "null agents", "none: null_agent will be NOT_RUN")


def _suite(system: LoadedSystem, source: Path | None, out: AdapterCheck) -> Suite | None:
    try:
        first, second = system.build_suite(source), system.build_suite(source)
    except AssayError as exc:
        out.add("FAIL", "suite", str(exc))
        return None
    except Exception as exc:
        out.add("FAIL", "suite", f"build_suite raised {type(exc).__name__}: {exc}")
        return None
    ids = Counter(item.item_id for item in first.items)
    repeated = sorted(i for i, n in ids.items() if n > 1)
    if not first.items:
        out.add("FAIL", "suite", "build_suite returned no item")
        return None
    if repeated:
        out.add("FAIL", "suite", f"item ids used twice: {', '.join(repeated[:5])}")
    moved = drift(system, source, first, second)
    if moved:
        out.add("FAIL", "suite", moved)
    else:
        out.add("ok", "suite", f"{len(first.items)} items, hash {first.suite_hash}, the same "
                "when built twice")
    return first


def _config(system: LoadedSystem, name: str | None, out: AdapterCheck) -> Config | None:
    configs = system.configs()
    if not configs:
        out.add("warn", "configs", "none: nothing can be run (an importer's adapter, say)")
        return None
    if name is None:
        runnable = [n for n, params in configs.items() if not is_model_config(params)]
        name = runnable[0] if runnable else next(iter(configs))
    if name not in configs:
        out.add("FAIL", "configs", f"no config {name!r} (available: {', '.join(configs)})")
        return None
    return Config(adapter=system.name, name=name, params=dict(configs[name]))


def _oracle(system: LoadedSystem, suite: Suite, out: AdapterCheck) -> None:
    view = system.replay_view()
    if view is None:
        return
    scorers = [s for s in system.scorers() if s.name in system.headline]
    ctx = system.scoring_context()
    short: Counter[str] = Counter()
    for item in suite.items:
        trajectory = view.replay(item.public(), item.gold.path, seed=stable_seed("check", 0))
        for scorer, result in score_all(scorers, item.gold, trajectory, ctx):
            if passes(scorer.kind, result.value) is False:
                short[scorer.name] += 1
    if short:
        below = ", ".join(f"{m} on {n} item(s)" for m, n in sorted(short.items()))
        out.add("FAIL", "oracle", f"gold replayed through the system misses the ceiling: {below} "
                "(positive_control will fail: the environment, the gold or a scorer is wrong)")
    else:
        out.add("ok", "oracle", f"gold replayed on {len(suite.items)} items reaches the ceiling "
                "on every headline metric")


def _one_item(system: LoadedSystem, suite: Suite, config: Config, out: AdapterCheck) -> None:
    item = sorted(suite.items, key=lambda i: i.item_id)[0]
    try:
        trajectory = act(system, Task(item.public(), config, stable_seed("check", 1), 1))
    except Exception as exc:
        out.add("FAIL", "run_item", f"{item.item_id} under {config.name} raised "
                f"{type(exc).__name__}: {exc}")
        return
    out.add("ok", "run_item", f"{item.item_id} under {config.name}: {len(trajectory.steps)} "
            f"step(s), outcome {trajectory.outcome!r}")


def items_needed(metrics: int, alpha: float) -> int:
    """The fewest altered items with which a one-sided exact paired test (all of them worse)
    can reach alpha / metrics: 0.5**n <= alpha / metrics."""
    return max(1, math.ceil(math.log2(metrics / alpha)))


def _mutation_power(system: LoadedSystem, suite: Suite, out: AdapterCheck) -> None:
    detector = [s for s in system.scorers() if s.kind != "measure"]
    alpha = float(load_bands(system.facts.bands).get("mutation")["alpha"])
    need = items_needed(len(detector), alpha)
    detail = (
        f"the statistical detector tests {len(detector)} metrics at {alpha} / "
        f"{len(detector)}, so a mutant must worsen at least {need} items to be killed; "
        f"this suite has {len(suite.items)}"
    )
    if len(suite.items) < need:
        out.add("FAIL", "mutation", detail + ": add items, or the mutation control fails for "
                "want of evidence")
    else:
        out.add("ok", "mutation", detail)
