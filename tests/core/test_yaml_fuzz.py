"""Hostile bands files, mutant sets and governance suite files: a valid result or one line
naming the file, never a traceback.

Documents come from five sources: random YAML values (NaN, infinities, huge integers,
booleans, odd strings, keys both from each file's vocabulary and random), documents shaped
like the real schema with random values, random token soup (anchors, aliases, tags, tabs,
brackets), raw bytes, and the shipped files with one key dropped or one value replaced.
The loaders run in this process; an accepted file must also satisfy the rules it was
checked against.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_assay.controls.bands import EXPECTED, RULES, Bands, load_bands
from agent_assay.errors import AssayError
from agent_assay.mutation.config import (
    BUILTIN,
    DETECTOR_KEYS,
    ENTRY_KEYS,
    PARAMS,
    TOP_KEYS,
    MutantSet,
    load_mutants,
)
from agent_assay.mutation.operators import DISTANCES, OPERATORS, TARGETS
from agent_assay_bundled.governance import (
    DIFFICULTIES,
    MAX_WORLDS,
    SPEC_FIELDS,
    SPLITS,
    load_spec,
)

BUNDLED_BANDS = sorted((Path(__file__).parents[2] / "src/agent_assay_bundled/bands").glob("*.yaml"))
BANDS_WORDS = sorted(
    {*RULES, *(k for rules in RULES.values() for k in rules), "derivation", "min_drop",
     "default", "outcome.match", "version", "defaults", "not_applicable",
     "allow_not_applicable", "adapters"}
)
MUTANT_WORDS = sorted(
    {*TOP_KEYS, *ENTRY_KEYS, *DETECTOR_KEYS, *OPERATORS, *PARAMS, *TARGETS, *DISTANCES,
     "tools.redundant"}
)
TOKENS = [
    "a", "b", ":", ": ", " ", "  ", "\n", "- ", "[", "]", "{", "}", ",", "&x ", "*x", "&y ",
    "*y", "!!int ", "!!binary ", "!!python/object ", "<<: ", "? ", "'", '"', "\t", "#", "|",
    ">", "%", "@", "`", "~", "null", "yes", "on", ".nan", "-.inf", "1e999", "9" * 4400,
    "2020-13-45", "0x1F", "1:30", "\x00", "\ufeff", "é", "operators", "detector",
    "null_agent", "min_margin", "derivation",
]


def scalars() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.integers(min_value=-(10**60), max_value=10**60),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=12),
        st.sampled_from(["", " ", "\t", "yes", "on", "~", "\u2028", "a\nb", "0.5", "-0"]),
    )


def values(words: list[str]) -> st.SearchStrategy[Any]:
    keys = st.one_of(st.sampled_from(words), st.text(max_size=8), st.integers(), st.booleans())
    leaves = st.one_of(scalars(), st.sampled_from(words))
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
        max_leaves=16,
    )


def dumped(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[bytes]:
    return strategy.map(lambda doc: yaml.safe_dump(doc, sort_keys=False).encode())


def soup() -> st.SearchStrategy[bytes]:
    return st.lists(st.sampled_from(TOKENS), max_size=40).map(lambda t: "".join(t).encode())


@st.composite
def damaged(draw: st.DrawFn, doc: Any, words: list[str]) -> bytes:
    """`doc` with the value at one place dropped (a key) or replaced."""
    doc = copy.deepcopy(doc)
    places: list[tuple[Any, Any]] = []

    def collect(node: Any) -> None:
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in list(items):
            places.append((node, key))
            if isinstance(child, dict | list):
                collect(child)

    collect(doc)
    parent, key = draw(st.sampled_from(places))
    if isinstance(parent, dict) and draw(st.booleans()):
        del parent[key]
    else:
        parent[key] = draw(values(words))
    return yaml.safe_dump(doc, sort_keys=False).encode()


def shipped(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def plausible() -> st.SearchStrategy[Any]:
    """Values near the valid ones, so that shaped documents reach the later checks."""
    return st.one_of(
        st.floats(min_value=0, max_value=1.5), st.integers(min_value=-1, max_value=12),
        st.sampled_from([*TARGETS, *DISTANCES, "why", "decision"]),
        st.lists(st.sampled_from(["on", "off", "a", "lamp"]), max_size=3), scalars(),
    )


def band_shaped() -> st.SearchStrategy[Any]:
    keys = sorted({k for rules in RULES.values() for k in rules})
    band = st.fixed_dictionaries(
        {"derivation": st.text(min_size=1, max_size=8) | scalars()},
        optional={
            **{key: plausible() for key in keys},
            "min_drop": st.dictionaries(st.sampled_from(["default", "outcome.match"]),
                                        plausible(), max_size=2),
            "misspelt": plausible(),
        },
    )
    return st.fixed_dictionaries(
        {},
        optional={
            **{kind: band for kind in RULES},
            "version": st.sampled_from([1, 2, True, "1"]),
            "not_applicable": st.dictionaries(st.sampled_from(sorted(RULES)) | scalars(),
                                              st.text(max_size=8) | scalars(), max_size=2),
            "allow_not_applicable": scalars(),
        },
    ).map(lambda doc: {"version": 1, "defaults": doc} if len(doc) % 3 == 0 else doc)


def mutant_shaped() -> st.SearchStrategy[Any]:
    entry = st.fixed_dictionaries(
        {"operator": st.sampled_from(sorted(OPERATORS)) | scalars()},
        optional={
            "params": st.dictionaries(st.sampled_from(sorted(PARAMS)), plausible(), max_size=3),
            "tags": st.lists(st.sampled_from(["on", "off"]) | scalars(), max_size=3),
            "label": st.text(max_size=6) | scalars(),
        },
    )
    detector = st.fixed_dictionaries(
        {},
        optional={
            "default_threshold": plausible(),
            "alpha": plausible(),
            "thresholds": st.dictionaries(st.sampled_from(MUTANT_WORDS) | scalars(), plausible(),
                                          max_size=3),
        },
    )
    return st.fixed_dictionaries({"operators": st.lists(entry, max_size=4)},
                                 optional={"detector": detector})


def documents(shaped: st.SearchStrategy[Any], words: list[str],
              real: list[Any]) -> st.SearchStrategy[bytes]:
    return st.one_of(
        dumped(values(words)),
        dumped(shaped),
        soup(),
        st.binary(max_size=120),
        st.one_of(*(damaged(doc, words) for doc in real)),
    )


def fuzz(
    tmp_path: Path,
    source: st.SearchStrategy[bytes],
    load: Callable[[Path, bool], None],
) -> Counter[str]:
    """Feed every drawn document to `load` (with a drawn flag for a loader that reads a file
    in two roles); count accepted files and one-line errors, and keep the first few of
    anything else (another exception, a message that is not one line starting with the
    file)."""
    path = tmp_path / "fuzzed.yaml"
    seen: Counter[str] = Counter()
    failures: list[str] = []

    @settings(max_examples=300, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(source, st.booleans())
    def one(raw: bytes, flag: bool) -> None:
        path.write_bytes(raw)
        seen["cases"] += 1
        try:
            load(path, flag)
        except AssayError as exc:
            said = str(exc)
            if "\n" in said or not said.startswith(str(path)):
                failures.append(f"bad message {said!r} for {raw[:200]!r}")
            seen["error"] += 1
        except Exception as exc:  # a traceback the user would see
            seen["traceback"] += 1
            failures.append(f"{type(exc).__name__}: {exc} for {raw[:200]!r}")
        else:
            seen["accepted"] += 1

    one()
    assert not failures, "\n".join(failures[:3])
    return seen


def summary(name: str, seen: Counter[str], what: str) -> str:
    return (f"{name} fuzz: {seen['cases']} cases, {seen['error']} one-line errors, "
            f"{seen['accepted']} {what}, {seen['traceback']} tracebacks")


@pytest.mark.usefixtures("same_cases_in_any_run")
def test_bands_files_are_accepted_or_refused_in_one_line(
    tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    """Each document is read as a defaults file (expected.yaml's role) or as an override."""
    real = [shipped(EXPECTED), *map(shipped, BUNDLED_BANDS)]

    def load(path: Path, as_defaults: bool) -> None:
        bands = load_bands(defaults_file=path) if as_defaults else load_bands(None, path)
        assert isinstance(bands, Bands)
        for kind, band in bands.per_kind.items():
            for key, rule in RULES[kind].items():
                assert rule(band[key]) is None, (kind, key, band[key])
        assert isinstance(bands.allow_not_applicable, bool)

    seen = fuzz(tmp_path, documents(band_shaped(), BANDS_WORDS, real), load)
    record_property("summary", summary("bands", seen, "accepted"))
    assert seen["cases"] == 300 and seen["error"] and seen["accepted"]


@pytest.mark.usefixtures("same_cases_in_any_run")
def test_mutant_sets_are_accepted_or_refused_in_one_line(
    tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    example = Path(__file__).parents[2] / "configs" / "mutants-synthworld.yaml"
    real = [shipped(BUILTIN), shipped(example)]

    def load(path: Path, _: bool) -> None:
        mutants = load_mutants(path)
        assert isinstance(mutants, MutantSet) and mutants.operators
        assert 0 < mutants.default_threshold <= 1 and 0 < mutants.alpha < 1
        assert all(0 < t <= 1 for t in mutants.thresholds.values())
        for spec in mutants.operators:
            assert set(spec.params) <= set(OPERATORS[spec.name].accepts)
            assert all(isinstance(tag, str) for tag in spec.tags)

    seen = fuzz(tmp_path, documents(mutant_shaped(), MUTANT_WORDS, real), load)
    record_property("summary", summary("mutant-set", seen, "accepted"))
    assert seen["cases"] == 300 and seen["error"] and seen["accepted"]


DIFFICULTY_NAMES = sorted(DIFFICULTIES)
SPEC_WORDS = sorted({*SPEC_FIELDS, *SPLITS, *DIFFICULTY_NAMES, "worlds"})


def spec_shaped() -> st.SearchStrategy[Any]:
    """Every field present, each usually valid (so some files are accepted), sometimes not."""
    def field(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(valid, valid, valid, scalars())

    return st.fixed_dictionaries(
        {
            "seed": field(st.integers(min_value=0, max_value=10**6)),
            "split": field(st.sampled_from(SPLITS)),
            "n": field(st.integers(min_value=1, max_value=MAX_WORLDS)),
            "difficulty": field(st.sampled_from(DIFFICULTY_NAMES)),
        },
        optional={"worlds": scalars()},
    )


@pytest.mark.usefixtures("same_cases_in_any_run")
def test_governance_suite_files_are_accepted_or_refused_in_one_line(
    tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    real = [{"seed": 0, "split": "eval", "n": 64, "difficulty": "medium"}]

    def load(path: Path, _: bool) -> None:
        spec = load_spec(path)
        assert spec.seed >= 0 and 1 <= spec.n <= MAX_WORLDS
        assert spec.split in SPLITS and spec.difficulty in DIFFICULTIES

    seen = fuzz(tmp_path, documents(spec_shaped(), SPEC_WORDS, real), load)
    record_property("summary", summary("governance suite-file", seen, "accepted"))
    assert seen["cases"] == 300 and seen["error"] and seen["accepted"]
