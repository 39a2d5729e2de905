"""Canonical JSON and content hashes."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest

from agent_assay import hashing
from agent_assay.hashing import canonical_json
from tests.support.toyrun import ROOT, cli_env


def test_canonical_json_is_key_order_independent() -> None:
    a = {"b": 1, "a": {"d": [1, {"y": 2, "x": 1}], "c": None}}
    b = {"a": {"c": None, "d": [1, {"x": 1, "y": 2}]}, "b": 1}
    assert hashing.canonical_json(a) == hashing.canonical_json(b)
    assert hashing.canonical_json(a) == '{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}'
    assert hashing.content_hash(hashing.ITEM, a) == hashing.content_hash(hashing.ITEM, b)


def test_canonical_json_keeps_list_order_and_types() -> None:
    assert hashing.canonical_json([1, 2]) != hashing.canonical_json([2, 1])
    assert hashing.canonical_json({"v": 1}) != hashing.canonical_json({"v": 1.0})
    assert hashing.canonical_json({"v": 1}) != hashing.canonical_json({"v": True})
    assert hashing.canonical_json("é") == '"é"'


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_canonical_json_refuses_non_finite(bad: float) -> None:
    with pytest.raises(ValueError):
        hashing.canonical_json({"x": bad})


def test_content_hash_is_sha256_of_prefix_newline_json() -> None:
    value = {"k": [1, 2]}
    expected = hashlib.sha256(b'aa.item.1\n{"k":[1,2]}').hexdigest()
    assert hashing.content_hash(hashing.ITEM, value) == expected


def test_prefixes_change_the_hash() -> None:
    value = {"same": "json"}
    kinds = [hashing.ITEM, hashing.SUITE, hashing.CONFIG, hashing.SCORER, hashing.TRAJECTORY]
    assert len(set(kinds)) == len(kinds)
    hashes = {hashing.content_hash(kind, value) for kind in kinds}
    assert len(hashes) == len(kinds)
    assert hashing.content_hash("aa.item.2", value) != hashing.content_hash(hashing.ITEM, value)


def test_stable_seed_range_and_sensitivity() -> None:
    seeds = {hashing.stable_seed(0, item, rep) for item in ("a", "b") for rep in (1, 2)}
    assert len(seeds) == 4
    assert all(0 <= s < 2**63 for s in seeds)
    assert hashing.stable_seed(1, "a") == hashing.stable_seed(1, "a")
    # The separator keeps ("ab", "c") and ("a", "bc") apart.
    assert hashing.stable_seed("ab", "c") != hashing.stable_seed("a", "bc")


def test_stable_seed_is_stable_across_processes() -> None:
    parts = (7, "on-L1", 3)
    code = (
        "from agent_assay.hashing import stable_seed; "
        f"print(stable_seed{parts!r}); print(hash('on-L1'))"
    )
    outputs = []
    for hash_seed in ("1", "2"):
        env = cli_env()
        env["PYTHONHASHSEED"] = hash_seed
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True,
            check=True, timeout=60,
        )
        outputs.append(done.stdout.split())
    (seed_a, hash_a), (seed_b, hash_b) = outputs
    assert hash_a != hash_b  # the builtin hash() really differs between these processes
    assert int(seed_a) == int(seed_b) == hashing.stable_seed(*parts)


def test_canonical_json_is_json_dumps_and_refuses_a_value_that_holds_itself() -> None:
    value = {"b": [1, 1.5, -0.0, None, True, "\u00e9\n\x01"], "a": {"z": {}, "y": []},
             "c": 10**30}
    assert canonical_json(value) == json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    looped: list[object] = []
    looped.append(looped)
    with pytest.raises(RecursionError):
        canonical_json({"a": looped})
