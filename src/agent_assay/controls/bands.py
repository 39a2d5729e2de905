"""The bands controls are judged against: the harness's defaults, a system's own file, and
`--bands FILE`, each layer overriding the one before.

Every value is checked before any control runs: an unknown key, a band without its
derivation, a wrong shape, a wrong type, a value out of range (a margin that is not
positive, a probability outside [0, 1], a count that is not a whole number, NaN) or a key
given twice is a one-line error naming the file, the line and the key. A threshold that
would make a control impossible to fail is refused rather than silently believed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_assay.errors import AssayError
from agent_assay.yamlfile import (
    Check,
    Located,
    check_keys,
    fraction,
    positive,
    probability,
    read_located,
    whole,
)

EXPECTED = Path(__file__).with_name("expected.yaml")
VERSION = 1
"""The one format a bands file has had; a file may say so with `version: 1`."""

RULES: Mapping[str, Mapping[str, Check]] = {
    "scorer_selftest": {"probe_items": whole(1)},
    "shuffled_gold": {},
    "state_check_bites": {"probe_items": whole(1)},
    "null_agent": {"min_margin": fraction},
    "random_agent": {
        "min_margin": fraction,
        "sd_factor": positive,
        "seeds": whole(2),
        "chance_confidence": probability,
    },
    "identical_config": {"max_differing_paths": whole(0)},
    "positive_control": {},
    "mutation": {"min_score": fraction, "alpha": probability},
    "headline_agreement": {
        "max_credited": whole(0),
        "max_withheld": whole(0),
        "max_replay_differs": whole(0),
        "max_rescored_differs": whole(0),
        "min_reference_margin": fraction,
    },
    "judge_calibration": {},
}
"""Each control kind's numeric keys and their rules (shuffled_gold.min_drop is a mapping
of metric -> drop, checked as fractions, with a required ``default``)."""

OVERRIDE_KEYS = frozenset({"version", "not_applicable", "allow_not_applicable"})


@dataclass(frozen=True)
class Bands:
    """Each control kind's band, what a system declares not applicable, and whether that
    declaration counts as allowed; `sources` lists the files, in the order applied.

    Only the person certifying can allow it (`--bands FILE` with `allow_not_applicable:
    true`, or `--allow-not-run KIND`): the system under test may say why a control does
    not apply to it, but a run it made must not become admissible on its own say-so."""

    per_kind: dict[str, dict[str, Any]]
    not_applicable: dict[str, str] = field(default_factory=dict)
    allow_not_applicable: bool = False
    sources: tuple[Path, ...] = ()

    def get(self, kind: str) -> dict[str, Any]:
        return self.per_kind.get(kind, {})


def load_bands(
    system_file: Path | None = None, extra: Path | None = None, *, defaults_file: Path = EXPECTED
) -> Bands:
    """The defaults, then the system's file, then `extra` (`--bands FILE`)."""
    defaults = read_located(defaults_file, "bands file")
    data = defaults.data
    if not isinstance(data, dict) or not isinstance(data.get("defaults"), dict):
        raise AssayError(f"{defaults.at('defaults')}: expected a mapping with a 'defaults' section")
    check_keys(defaults, (), data, ("version", "defaults"), "a defaults file")
    _check_version(defaults, data)
    per_kind: dict[str, dict[str, Any]] = {}
    for kind, band in data["defaults"].items():
        if kind not in RULES:
            raise AssayError(f"{defaults.at('defaults', kind)}: unknown control kind {kind!r}")
        _check_band(defaults, ("defaults", kind), kind, band, complete=True)
        per_kind[kind] = dict(band)
    missing = sorted(set(RULES) - set(per_kind))
    if missing:
        raise AssayError(
            f"{defaults.at('defaults')}: defaults has no band for {', '.join(missing)}"
        )
    bands = Bands(per_kind, sources=(defaults_file,))
    if system_file is not None:
        bands = _overlay(bands, read_located(Path(system_file), "bands file"), may_allow=False)
    if extra is not None:
        bands = _overlay(bands, read_located(Path(extra), "bands file"), may_allow=True)
    return bands


def _check_version(doc: Located, data: Mapping[Any, Any]) -> None:
    if "version" in data and (data["version"] != VERSION or isinstance(data["version"], bool)):
        raise AssayError(f"{doc.at('version')}: version must be {VERSION}, got {data['version']!r}")


def _overlay(bands: Bands, doc: Located, *, may_allow: bool) -> Bands:
    data = doc.data if doc.data is not None else {}
    if not isinstance(data, dict):
        raise AssayError(f"{doc.path}: a bands file is a mapping of control kinds to bands")
    _check_version(doc, data)
    per_kind = {kind: dict(band) for kind, band in bands.per_kind.items()}
    declared = dict(bands.not_applicable)
    allow = bands.allow_not_applicable
    for key, value in data.items():
        if key in OVERRIDE_KEYS:
            continue
        if key not in RULES:
            raise AssayError(
                f"{doc.at(key)}: unknown key {key!r} (a control kind, or one of "
                f"{', '.join(sorted(OVERRIDE_KEYS))})"
            )
        _check_band(doc, (key,), key, value, complete=False)
        per_kind[key] = {**per_kind[key], **value}
    if "not_applicable" in data:
        reasons = data["not_applicable"]
        if not isinstance(reasons, dict):
            raise AssayError(f"{doc.at('not_applicable')}: not_applicable maps kinds to reasons")
        for kind, reason in reasons.items():
            if kind not in RULES:
                raise AssayError(f"{doc.at('not_applicable', kind)}: unknown control kind {kind!r}")
            if not isinstance(reason, str) or not reason.strip():
                raise AssayError(
                    f"{doc.at('not_applicable', kind)}: the reason {kind} does not apply must "
                    "be a sentence"
                )
            declared[kind] = " ".join(reason.split())
    if "allow_not_applicable" in data:
        allow = data["allow_not_applicable"]
        if not isinstance(allow, bool):
            raise AssayError(f"{doc.at('allow_not_applicable')}: must be true or false")
        if allow and not may_allow:
            raise AssayError(
                f"{doc.at('allow_not_applicable')}: a system's own bands file cannot allow "
                "its controls not to run; whoever certifies the run allows that (--bands "
                "FILE with allow_not_applicable: true, or --allow-not-run KIND)"
            )
    return Bands(per_kind, declared, allow, (*bands.sources, doc.path))


def _check_band(doc: Located, at: tuple[Any, ...], kind: str, band: Any, *, complete: bool) -> None:
    if not isinstance(band, dict):
        raise AssayError(f"{doc.at(*at)}: the band for {kind} must be a mapping")
    derivation = band.get("derivation")
    if not isinstance(derivation, str) or not derivation.strip():
        raise AssayError(f"{doc.at(*at)}: band for {kind} has no derivation (say why this value)")
    rules = RULES[kind]
    allowed = {"derivation", *rules, *(("min_drop",) if kind == "shuffled_gold" else ())}
    check_keys(doc, at, band, allowed, f"the band for {kind}")
    for key, rule in rules.items():
        if key not in band:
            if complete:
                raise AssayError(f"{doc.at(*at)}: band for {kind} is missing '{key}'")
            continue
        problem = rule(band[key])
        if problem:
            raise AssayError(f"{doc.at(*at, key)}: band {kind}.{key} {problem}")
    if kind == "shuffled_gold" and ("min_drop" in band or complete):
        drops = band.get("min_drop")
        if not isinstance(drops, dict) or "default" not in drops:
            raise AssayError(f"{doc.at(*at, 'min_drop')}: band shuffled_gold.min_drop needs a "
                             "'default' entry")
        for metric, drop in drops.items():
            problem = fraction(drop)
            if problem:
                raise AssayError(
                    f"{doc.at(*at, 'min_drop', metric)}: band shuffled_gold.min_drop.{metric} "
                    f"{problem}"
                )
