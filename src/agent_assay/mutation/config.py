"""Read a mutant set (configs/mutants.yaml): operators, where they apply, how kills are decided.

Malformed files fail with one line naming the file and the key or line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_assay.errors import AssayError
from agent_assay.mutation.operators import CLASSIC, OPERATORS, REQUIRED_PARAMS
from agent_assay.yamlfile import read_yaml


@dataclass(frozen=True)
class OperatorSpec:
    name: str
    params: Mapping[str, Any] = field(default_factory=dict)
    tags: tuple[str, ...] = ()  # empty: every item
    label: str = ""  # how tables name this mutant; the operator name when empty

    @property
    def title(self) -> str:
        return self.label or self.name


@dataclass(frozen=True)
class MutantSet:
    operators: tuple[OperatorSpec, ...]
    thresholds: Mapping[str, float]
    default_threshold: float
    alpha: float
    source: str

    def threshold(self, metric: str) -> float:
        return float(self.thresholds.get(metric, self.default_threshold))


DEFAULT = MutantSet(
    operators=tuple(OperatorSpec(op.name) for op in CLASSIC),
    thresholds={},
    default_threshold=0.05,
    alpha=0.05,
    source="built-in default (the five parameter-free operators)",
)


def load_mutants(path: Path) -> MutantSet:
    data = read_yaml(path, "mutant set")
    if not isinstance(data, dict) or not isinstance(data.get("operators"), list):
        raise AssayError(f"{path}: expected a mapping with an 'operators' list")
    specs = []
    for index, entry in enumerate(data["operators"]):
        if not isinstance(entry, dict) or entry.get("operator") not in OPERATORS:
            raise AssayError(f"{path}: operators[{index}] must name one of {', '.join(OPERATORS)}")
        params = entry.get("params") or {}
        tags = entry.get("tags") or []
        if not isinstance(params, dict) or not isinstance(tags, list):
            raise AssayError(f"{path}: operators[{index}] params must be a mapping, tags a list")
        missing = [p for p in REQUIRED_PARAMS[entry["operator"]] if p not in params]
        if missing:
            raise AssayError(
                f"{path}: operators[{index}] ({entry['operator']}) needs params: "
                f"{', '.join(missing)}"
            )
        specs.append(
            OperatorSpec(
                entry["operator"], params, tuple(map(str, tags)), str(entry.get("label") or "")
            )
        )
    titles = [spec.title for spec in specs]
    repeated = sorted({t for t in titles if titles.count(t) > 1})
    if repeated:
        raise AssayError(f"{path}: give each use of {', '.join(repeated)} its own label")
    detector = data.get("detector") or {}
    try:
        thresholds = {str(k): float(v) for k, v in (detector.get("thresholds") or {}).items()}
        default = float(detector.get("default_threshold", DEFAULT.default_threshold))
        alpha = float(detector.get("alpha", DEFAULT.alpha))
    except (TypeError, ValueError, AttributeError) as exc:
        raise AssayError(f"{path}: detector thresholds and alpha must be numbers") from exc
    if not 0 < alpha < 1:
        raise AssayError(f"{path}: detector.alpha must be between 0 and 1, got {alpha}")
    return MutantSet(tuple(specs), thresholds, default, alpha, str(path))
