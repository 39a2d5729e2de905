"""Read a mutant set: operators, where they apply, how kills are decided.

`BUILTIN` (mutants.yaml beside this module, shipped with the package) is what `mutate`
uses without `--operators`. Every value is checked before anything runs, as in a bands
file: an unknown key (at the top, in an operator entry, in `detector`), a parameter the
operator does not take or a value it cannot use, an empty operator list, a threshold
outside (0, 1], NaN or a boolean where a number belongs is a one-line error naming the
file, the line and the key. Each would otherwise run and come back EQUIVALENT, or with
no score, as if the metrics had nothing to see.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_assay.errors import AssayError
from agent_assay.mutation.operators import (
    CLASSIC,
    DISTANCES,
    OPERATORS,
    REQUIRED_PARAMS,
    TARGETS,
)
from agent_assay.yamlfile import (
    Check,
    Located,
    check_keys,
    fraction,
    probability,
    read_located,
    text,
)

BUILTIN = Path(__file__).with_name("mutants.yaml")
BUILTIN_NAME = "the built-in mutant set"
"""The default mutant set, shipped as package data (the same content as configs/mutants.yaml)."""

TOP_KEYS = ("operators", "detector")
ENTRY_KEYS = ("operator", "label", "params", "tags")
DETECTOR_KEYS = ("default_threshold", "thresholds", "alpha")


@dataclass(frozen=True)
class OperatorSpec:
    name: str
    params: Mapping[str, Any] = field(default_factory=dict)
    tags: tuple[str, ...] = ()  # empty: every item
    label: str = ""  # how tables name this mutant; the operator name when empty
    where: str = field(default="", compare=False)
    """`file:line` of the entry, for what can only be checked once the run is known."""

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
    threshold_at: Mapping[str, str] = field(default_factory=dict, compare=False)
    """`file:line` of each entry of `thresholds`, for the check against the run's metrics."""

    def threshold(self, metric: str) -> float:
        return float(self.thresholds.get(metric, self.default_threshold))


DEFAULT = MutantSet(
    operators=tuple(OperatorSpec(op.name) for op in CLASSIC),
    thresholds={},
    default_threshold=0.05,
    alpha=0.05,
    source="built-in default (the parameter-free operators)",
)


# ---- parameter rules ----------------------------------------------------------------------
def names(value: Any, *, empty: bool = False) -> str | None:
    """A list of names (arguments, tags); an empty one only where it means "all"."""
    if not isinstance(value, list) or not (value or empty):
        return f"must be a {'' if empty else 'non-empty '}list of names, got {value!r}"
    problem = next((p for v in value if (p := text(v))), None)
    return f"must be a list of names: an entry {problem}" if problem else None


def tag_names(value: Any) -> str | None:
    """`tags`: an empty list, like none, means every item."""
    return names(value, empty=True)


def plain(value: Any) -> str | None:
    """A value a call argument can hold and the store can keep: JSON without NaN."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"must be finite, got {value!r}"
    if isinstance(value, list):
        return next((p for v in value if (p := plain(v))), None)
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            return f"must have string keys, got {value!r}"
        return next((p for v in value.values() if (p := plain(v))), None)
    if value is None or isinstance(value, str | int | float):
        return None
    return f"must be a string, number, boolean, null, list or mapping, got {value!r}"


def two_values(value: Any) -> str | None:
    """flip_arg's pair: two different values, each swapped for the other."""
    if not isinstance(value, list) or len(value) != 2:
        return f"must be a list of the two values to swap, got {value!r}"
    if value[0] == value[1]:
        return f"must be two different values, got {value!r}"
    return plain(value)


def target(value: Any) -> str | None:
    ok = isinstance(value, str) and value in TARGETS
    return None if ok else f"must be one of {', '.join(TARGETS)}, got {value!r}"


def distance(value: Any) -> str | None:
    ok = isinstance(value, str) and value in DISTANCES
    return None if ok else f"must be one of {', '.join(DISTANCES)}, got {value!r}"


PARAMS: Mapping[str, Check] = {
    "target": target,
    "distance": distance,
    "args": names,
    "arg": text,
    "value": plain,
    "values": two_values,
}
"""Each parameter an operator can take (see `Operator.accepts`) and its rule."""


# ---- reading ------------------------------------------------------------------------------
def load_mutants(path: Path) -> MutantSet:
    """The mutant set in `path`, every value checked before a pass can run on it."""
    doc = read_located(path, "mutant set")
    data = doc.data
    if not isinstance(data, dict) or not isinstance(data.get("operators"), list):
        raise AssayError(f"{doc.at('operators')}: expected a mapping with an 'operators' list")
    check_keys(doc, (), data, TOP_KEYS, "a mutant set")
    detector = _section(doc, data, "detector")
    thresholds, default, alpha = _detector(doc, detector)
    if not data["operators"]:
        raise AssayError(f"{doc.at('operators')}: operators is empty: name at least one")
    specs = [_operator(doc, index, entry) for index, entry in enumerate(data["operators"])]
    titles: set[str] = set()
    for index, spec in enumerate(specs):
        if spec.title in titles:
            raise AssayError(
                f"{doc.at('operators', index)}: operators[{index}] repeats {spec.title}; "
                "give each use of an operator its own label"
            )
        titles.add(spec.title)
    at = {metric: doc.at("detector", "thresholds", metric) for metric in thresholds}
    return MutantSet(tuple(specs), thresholds, default, alpha, source_name(path), at)


def source_name(path: Path) -> str:
    """How a pass names its mutant set: the built-in one by that name (its installed path
    differs between machines), any other by the path given."""
    return BUILTIN_NAME if path.resolve() == BUILTIN.resolve() else str(path)


def _operator(doc: Located, index: int, entry: Any) -> OperatorSpec:
    at = ("operators", index)
    if not isinstance(entry, dict):
        raise AssayError(f"{doc.at(*at)}: {_dotted(at)} must be a mapping with an 'operator' key")
    check_keys(doc, at, entry, ENTRY_KEYS, _dotted(at))
    name = entry.get("operator")
    if not isinstance(name, str) or name not in OPERATORS:
        raise AssayError(
            f"{doc.at(*at, 'operator')}: {_dotted(at)} must name one of "
            f"{', '.join(OPERATORS)}, got {name!r}"
        )
    params = _section(doc, entry, "params", at)
    accepts = OPERATORS[name].accepts
    check_keys(doc, (*at, "params"), params, accepts, f"the params of {_dotted(at)} ({name})")
    missing = [p for p in REQUIRED_PARAMS[name] if p not in params]
    if missing:
        raise AssayError(
            f"{doc.at(*at, 'params')}: {_dotted(at)} ({name}) needs params: {', '.join(missing)}"
        )
    for key, value in params.items():
        _need(doc, (*at, "params", key), value, PARAMS[key])
    tags = [] if entry.get("tags") is None else entry["tags"]
    _need(doc, (*at, "tags"), tags, tag_names)
    if "label" in entry:
        _need(doc, (*at, "label"), entry["label"], text)
    return OperatorSpec(name, params, tuple(map(str, tags)), entry.get("label", ""), doc.at(*at))


def _detector(doc: Located, detector: dict[Any, Any]) -> tuple[dict[str, float], float, float]:
    at = ("detector",)
    check_keys(doc, at, detector, DETECTOR_KEYS, "detector")
    thresholds = _section(doc, detector, "thresholds", at)
    for metric, value in thresholds.items():
        _need(doc, (*at, "thresholds", metric), metric, text)
        _need(doc, (*at, "thresholds", metric), value, fraction)
    default = detector.get("default_threshold", DEFAULT.default_threshold)
    alpha = detector.get("alpha", DEFAULT.alpha)
    _need(doc, (*at, "default_threshold"), default, fraction)
    _need(doc, (*at, "alpha"), alpha, probability)
    return {k: float(v) for k, v in thresholds.items()}, float(default), float(alpha)


def _section(
    doc: Located, data: dict[Any, Any], key: str, at: tuple[Any, ...] = ()
) -> dict[Any, Any]:
    """`data[key]`, a mapping; absent or left empty (`key:`) is an empty one."""
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise AssayError(f"{doc.at(*at, key)}: {_dotted((*at, key))} must be a mapping")
    return value


def _need(doc: Located, keys: tuple[Any, ...], value: Any, rule: Check) -> None:
    problem = rule(value)
    if problem:
        raise AssayError(f"{doc.at(*keys)}: {_dotted(keys)} {problem}")


def _dotted(keys: tuple[Any, ...]) -> str:
    """How a message names a place: operators[2].params.args, detector.thresholds['a.b']."""
    out = ""
    for key in keys:
        if type(key) is int:
            out += f"[{key}]"
        elif isinstance(key, str) and "." not in key and key.isprintable():
            out += f".{key}" if out else key
        else:
            out += f"[{key!r}]"
    return out
