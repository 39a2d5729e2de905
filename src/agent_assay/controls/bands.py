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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from agent_assay.errors import AssayError
from agent_assay.yamlfile import (
    Check,
    Located,
    boolean,
    check_keys,
    fraction,
    positive,
    probability,
    read_located,
    share,
    whole,
)

EXPECTED = Path(__file__).with_name("expected.yaml")
VERSION = 1
"""The one format a bands file has had; a file may say so with `version: 1`."""

Looser = Literal["up", "down"]


@dataclass(frozen=True)
class Rule:
    """A band key's check, and which way a value must move to make its control easier to
    pass: a file that moves it that way from the default has waived part of the control."""

    check: Check
    looser: Looser

    def __call__(self, value: Any) -> str | None:
        return self.check(value)

    def is_looser(self, value: Any, default: Any) -> bool:
        return bool(value > default if self.looser == "up" else value < default)


SEEDS_FLOOR = 5
"""The fewest random_agent seeds any file or `--random-seeds` may ask for. On a metric
that is not 0/1 the band is the mean over seeds plus `sd_factor` x their standard
deviation, and that deviation estimated from n seeds has n - 1 degrees of freedom: the
chance it comes out under half the true one, P(chi2(n-1) < (n-1)/4), is 0.38 at 2 seeds,
0.22 at 3, 0.14 at 4, 0.09 at 5 and 0.013 at the default 10. Below 5, "3 sd" is under
1.5 true sd more than one time in ten, so the rule would no longer say what it claims."""
SEEDS_CEILING = 1000
"""The most random_agent seeds any file or `--random-seeds` may ask for. Each seed replays
random calls over every item, so the time grows with the count, while what more seeds buy
shrinks: n seeds' standard deviation is off by about 1 / sqrt(2(n - 1)) of itself, 7% at
100 and 2% at 1000. A count past it sharpens no band; it is a typo, or a run that never
ends."""

RULES: Mapping[str, Mapping[str, Rule]] = {
    "scorer_selftest": {"probe_items": Rule(whole(1), looser="down")},
    "shuffled_gold": {},
    "state_check_bites": {"probe_items": Rule(whole(1), looser="down")},
    "null_agent": {"min_margin": Rule(fraction, looser="down")},
    "random_agent": {
        "min_margin": Rule(fraction, looser="down"),
        "sd_factor": Rule(positive, looser="down"),
        "seeds": Rule(whole(SEEDS_FLOOR, SEEDS_CEILING), looser="down"),
        "chance_confidence": Rule(probability, looser="down"),
    },
    "identical_config": {"max_differing_paths": Rule(whole(0), looser="up")},
    "positive_control": {},
    "mutation": {
        "min_score": Rule(fraction, looser="down"),
        "alpha": Rule(probability, looser="up"),
    },
    "headline_agreement": {
        "max_credited": Rule(whole(0), looser="up"),
        "max_withheld": Rule(whole(0), looser="up"),
        "max_replay_differs": Rule(whole(0), looser="up"),
        "max_rescored_differs": Rule(whole(0), looser="up"),
        "min_reference_margin": Rule(fraction, looser="down"),
    },
    "judge_calibration": {
        "min_sensitivity": Rule(fraction, looser="down"),
        "min_specificity": Rule(fraction, looser="down"),
        "confidence": Rule(probability, looser="down"),
        "max_position_flips": Rule(share, looser="up"),
        "max_verbosity_flips": Rule(share, looser="up"),
        "allow_same_family": Rule(boolean, looser="up"),
        "allow_system_judge": Rule(boolean, looser="up"),
    },
}
"""Each control kind's numeric keys, their rules, and which way is looser
(shuffled_gold.min_drop is a mapping of metric -> drop, each checked by MIN_DROP, with a
required ``default``)."""

MIN_DROP = Rule(fraction, looser="down")
"""shuffled_gold.min_drop's rule for every metric's drop: a smaller drop is easier."""

OVERRIDE_KEYS = frozenset({"version", "not_applicable", "allow_not_applicable"})


SYSTEM = "the system's own bands file"
CERTIFIER = "--bands FILE"
SEEDS_FLAG = "--random-seeds"
"""Who set a band value: the party under test, or the one certifying (a file, a flag)."""


@dataclass(frozen=True)
class SetBy:
    who: str
    """SYSTEM, CERTIFIER or SEEDS_FLAG."""
    file: str | None = None


@dataclass(frozen=True)
class Departure:
    """One band value that differs from the harness's default, and who set it."""

    kind: str
    key: str
    """The band key; shuffled_gold's drops are ``min_drop.METRIC``."""
    value: Any
    default: Any
    set_by: SetBy

    @property
    def looser(self) -> bool:
        rule = MIN_DROP if self.key.startswith("min_drop.") else RULES[self.kind][self.key]
        return rule.is_looser(self.value, self.default)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "key": self.key, "value": self.value,
                "default": self.default, "set_by": self.set_by.who, "file": self.set_by.file}


@dataclass(frozen=True)
class Bands:
    """Each control kind's band, what a system declares not applicable, and whether that
    declaration counts as allowed; `sources` lists the files, in the order applied.

    Only the person certifying can allow it (`--bands FILE` with `allow_not_applicable:
    true`, or `--allow-not-run KIND`): the system under test may say why a control does
    not apply to it, but a run it made must not become admissible on its own say-so.
    `defaults` keeps the harness's own bands and `set_by` who set each value that an
    override file gave ("kind.key"), so every departure can be named."""

    per_kind: dict[str, dict[str, Any]]
    not_applicable: dict[str, str] = field(default_factory=dict)
    allow_not_applicable: bool = False
    sources: tuple[Path, ...] = ()
    defaults: dict[str, dict[str, Any]] = field(default_factory=dict)
    set_by: dict[str, SetBy] = field(default_factory=dict)

    def get(self, kind: str) -> dict[str, Any]:
        return self.per_kind.get(kind, {})

    def with_seeds(self, seeds: int) -> Bands:
        """These bands with random_agent's seed count set by `--random-seeds`."""
        problem = RULES["random_agent"]["seeds"](seeds)
        if problem:
            why = ("with fewer seeds the per-seed standard deviation random_agent's band "
                   "rests on is itself too noisy" if seeds < SEEDS_FLOOR else
                   "each seed replays random calls over every item, and more seeds no longer "
                   "sharpen the band")
            raise AssayError(f"{SEEDS_FLAG} {problem}: {why}")
        per_kind = {**self.per_kind, "random_agent": {**self.get("random_agent"),
                                                      "seeds": seeds}}
        return replace(self, per_kind=per_kind,
                       set_by={**self.set_by, "random_agent.seeds": SetBy(SEEDS_FLAG)})

    def departures(self) -> tuple[Departure, ...]:
        """Every value that differs from the harness's default, in kind order."""
        found: list[Departure] = []
        for kind, rules in RULES.items():
            band, default = self.get(kind), self.defaults.get(kind, {})
            for key in rules:
                if key in band and key in default and band[key] != default[key]:
                    found.append(Departure(kind, key, band[key], default[key],
                                           self.set_by.get(f"{kind}.{key}", SetBy("?"))))
            if "min_drop" in band and "min_drop" in default:
                found += _drop_departures(kind, band["min_drop"], default["min_drop"],
                                          self.set_by.get(f"{kind}.min_drop", SetBy("?")))
        return tuple(found)


def _drop_departures(
    kind: str, drops: Mapping[str, Any], defaults: Mapping[str, Any], set_by: SetBy
) -> list[Departure]:
    """A metric's drop is its own entry, else the mapping's default, in both files."""
    found = []
    for metric in sorted({*drops, *defaults}):
        value = drops.get(metric, drops["default"])
        default = defaults.get(metric, defaults["default"])
        if value != default:
            found.append(Departure(kind, f"min_drop.{metric}", value, default, set_by))
    return found


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
    bands = Bands(per_kind, sources=(defaults_file,),
                  defaults={kind: dict(band) for kind, band in per_kind.items()})
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
    set_by = dict(bands.set_by)
    by = SetBy(CERTIFIER if may_allow else SYSTEM, str(doc.path))
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
        set_by |= {f"{key}.{name}": by for name in value if name != "derivation"}
    _refuse_own_family_waiver(doc, data, may_allow=may_allow)
    if "not_applicable" in data:
        declared |= _not_applicable(doc, data["not_applicable"])
    if "allow_not_applicable" in data:
        allow = _allowed(doc, data["allow_not_applicable"], may_allow=may_allow)
    return Bands(per_kind, declared, allow, (*bands.sources, doc.path), bands.defaults, set_by)


CERTIFIER_ONLY: Mapping[str, str] = {
    "allow_same_family": "a judge of the agent's model family (a model grading its own "
                         "family's answers is the bias nobody can see)",
    "allow_system_judge": "a judge backend the system wrote (it could answer the labelled "
                          "pairs from their labels)",
}
"""judge_calibration's waivers that only whoever certifies may give, and what each waives."""


def _refuse_own_family_waiver(doc: Located, data: Mapping[Any, Any], *, may_allow: bool) -> None:
    """A system's own bands file may not give a waiver in CERTIFIER_ONLY."""
    band = data.get("judge_calibration")
    if may_allow or not isinstance(band, dict):
        return
    for key, what in CERTIFIER_ONLY.items():
        if band.get(key) is True:
            raise AssayError(
                f"{doc.at('judge_calibration', key)}: a system's own bands file cannot waive "
                f"{what}; whoever certifies the run does that (--bands FILE with "
                f"judge_calibration.{key}: true)"
            )


def _not_applicable(doc: Located, reasons: Any) -> dict[str, str]:
    """The controls a bands file declares not applicable, each with its reason."""
    if not isinstance(reasons, dict):
        raise AssayError(f"{doc.at('not_applicable')}: not_applicable maps kinds to reasons")
    declared: dict[str, str] = {}
    for kind, reason in reasons.items():
        if kind not in RULES:
            raise AssayError(f"{doc.at('not_applicable', kind)}: unknown control kind {kind!r}")
        if not isinstance(reason, str) or not reason.strip():
            raise AssayError(
                f"{doc.at('not_applicable', kind)}: the reason {kind} does not apply must "
                "be a sentence"
            )
        declared[kind] = " ".join(reason.split())
    return declared


def _allowed(doc: Located, allow: Any, *, may_allow: bool) -> bool:
    """allow_not_applicable as a bands file sets it: only a certifier's file may."""
    if not isinstance(allow, bool):
        raise AssayError(f"{doc.at('allow_not_applicable')}: must be true or false")
    if allow and not may_allow:
        raise AssayError(
            f"{doc.at('allow_not_applicable')}: a system's own bands file cannot allow "
            "its controls not to run; whoever certifies the run allows that (--bands "
            "FILE with allow_not_applicable: true, or --allow-not-run KIND)"
        )
    return allow


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
        _check_min_drop(doc, at, band.get("min_drop"))


def _check_min_drop(doc: Located, at: tuple[Any, ...], drops: Any) -> None:
    """shuffled_gold's min_drop: a default, and a valid drop per metric."""
    if not isinstance(drops, dict) or "default" not in drops:
        raise AssayError(f"{doc.at(*at, 'min_drop')}: band shuffled_gold.min_drop needs a "
                         "'default' entry")
    for metric, drop in drops.items():
        problem = MIN_DROP(drop)
        if problem:
            raise AssayError(
                f"{doc.at(*at, 'min_drop', metric)}: band shuffled_gold.min_drop.{metric} "
                f"{problem}"
            )
