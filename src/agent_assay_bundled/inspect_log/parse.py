"""An Inspect log read whole and checked before anything is stored (`ParsedLog`).

The suite is a function of the task and its samples only (the task's name, version and
arguments, the dataset's name, each sample's id, input and target, and the scorers with
their options and scale), never of the log's random ids or its time: the same task and
dataset read from any log is the same suite, which is what lets `compare` pair two logs
of one task and refuse two of different tasks. A fault that makes the log unusable (a
damaged file, a sample that fails Inspect's schema, a score of an unknown shape, two
samples sharing an id, a sample whose input differs between epochs, samples with unequal
epochs) is one AssayError naming the file and the sample; nothing is stored.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_assay.errors import AssayError
from agent_assay.hashing import canonical_json
from agent_assay.model import Item, Suite, Trajectory
from agent_assay_bundled.inspect_log.convert import item_of, trajectory_of
from agent_assay_bundled.inspect_log.read import header, samples, sha256_of
from agent_assay_bundled.inspect_log.rules import ADAPTER, kind_of

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample


@dataclass(frozen=True)
class ParsedLog:
    """A fully checked log: nothing here has been written yet."""

    path: Path
    sha256: str
    suite: Suite
    trajectories: tuple[Trajectory, ...]
    epochs: int
    task: str
    model: str
    scorers: tuple[Mapping[str, Any], ...]
    status: str


@dataclass
class _Gathered:
    """What the samples gave so far: each item's first reading and where it was read,
    the trajectories, each item's epochs, each scorer's mapped values."""

    items: dict[str, tuple[Item, str]]
    trajectories: list[Trajectory]
    epochs: dict[str, list[int]]
    values: dict[str, list[float]]


def _task_identity(log: EvalLog) -> dict[str, Any]:
    spec = log.eval
    return {"task": spec.task, "task_version": spec.task_version,
            "task_args": dict(spec.task_args or {}), "dataset": spec.dataset.name}


def _gather(path: Path, task: Mapping[str, Any]) -> _Gathered:
    got = _Gathered({}, [], defaultdict(list), defaultdict(list))
    for sample in samples(path):
        where = f"{path}: sample {sample.id!r} epoch {sample.epoch}"
        _add(got, sample, task, where)
    if not got.trajectories:
        raise AssayError(f"{path}: the Inspect log holds no samples")
    return got


def _add(got: _Gathered, sample: EvalSample, task: Mapping[str, Any], where: str) -> None:
    item = item_of(sample, task)
    first = got.items.get(item.item_id)
    if first is not None and canonical_json(first[0].to_json()) != canonical_json(item.to_json()):
        raise AssayError(f"{where}: its id, input or target differs from {first[1]} "
                         "(two samples share an id, or one changed between epochs)")
    if sample.epoch in got.epochs[item.item_id]:
        raise AssayError(f"{where}: this id and epoch appear twice")
    got.items.setdefault(item.item_id, (item, where))
    got.epochs[item.item_id].append(sample.epoch)
    trajectory = trajectory_of(sample, item.gold, where)
    got.trajectories.append(trajectory)
    for key, score in trajectory.meta["scores"].items():
        got.values[key].append(score["mapped"])


def _scorer_specs(log: EvalLog, values: Mapping[str, Sequence[float]]) -> list[dict[str, Any]]:
    """Each score key of the log: the scorer that wrote it, its options, its scale."""
    declared = {s.name: s for s in (log.eval.scorers or [])}
    specs = []
    for key in sorted(values):
        scorer = declared.get(key)
        specs.append({"key": key, "scorer": scorer.name if scorer else key,
                      "options": dict(scorer.options or {}) if scorer else {},
                      "kind": kind_of(values[key])})
    return specs


def _equal_epochs(path: Path, epochs: Mapping[str, list[int]]) -> int:
    counts = {item_id: len(e) for item_id, e in epochs.items()}
    if len(set(counts.values())) > 1:
        most = max(counts.values())
        short = sorted(i for i, n in counts.items() if n < most)
        raise AssayError(f"{path}: sample {short[0]!r} has {counts[short[0]]} epoch(s), others "
                         f"{most} ({len(short)} sample(s) short): a run needs equal repetitions")
    return next(iter(counts.values()))


def parse_log(path: Path) -> ParsedLog:
    """Read and check one log (see the module doc); store nothing."""
    log = header(path)
    task = _task_identity(log)
    got = _gather(path, task)
    epochs = _equal_epochs(path, got.epochs)
    specs = _scorer_specs(log, got.values)
    items = {i: replace(item, input={**item.input, "inspect_scorers": specs})
             for i, (item, _) in got.items.items()}
    rank = {(i, e): n for i, es in got.epochs.items() for n, e in enumerate(sorted(es), 1)}
    trajectories = sorted((replace(t, repetition=rank[(t.item_id, t.repetition)])
                           for t in got.trajectories), key=lambda t: (t.item_id, t.repetition))
    sha256 = sha256_of(path)
    suite = Suite(adapter=ADAPTER, items=tuple(items[i] for i in sorted(items)),
                  source=f"{path.name} (sha256 {sha256})")
    return ParsedLog(path, sha256, suite, tuple(trajectories), epochs, str(log.eval.task),
                     str(log.eval.model), tuple(specs), str(log.status))
