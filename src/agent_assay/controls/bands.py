"""Load expected.yaml and hand each control its band, refusing a malformed file.

A missing band or a value of the wrong type is a one-line error naming the
file and the key, before any control runs, so nothing is judged against a
silently defaulted threshold.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_assay.errors import AssayError
from agent_assay.yamlfile import read_yaml

EXPECTED = Path(__file__).with_name("expected.yaml")

REQUIRED_NUMBERS: Mapping[str, tuple[str, ...]] = {
    "scorer_selftest": ("probe_items",),
    "state_check_bites": ("probe_items",),
    "null_agent": ("min_margin",),
    "random_agent": ("min_margin", "sd_factor", "seeds"),
    "identical_config": ("max_differing_paths",),
    "mutation": ("min_score", "alpha"),
}


def load_bands(adapter: str, path: Path = EXPECTED) -> dict[str, dict[str, Any]]:
    """Each control kind's band for `adapter`: defaults overlaid with the adapter's overrides."""
    data = read_yaml(path, "bands file")
    if not isinstance(data, dict) or not isinstance(data.get("defaults"), dict):
        raise AssayError(f"{path}: expected a mapping with a 'defaults' section")
    bands: dict[str, dict[str, Any]] = {k: dict(v or {}) for k, v in data["defaults"].items()}
    overrides = (data.get("adapters") or {}).get(adapter) or {}
    for kind, band in overrides.items():
        if kind in ("not_applicable", "allow_not_applicable"):
            continue
        bands[kind] = {**bands.get(kind, {}), **band}
    for kind, band in bands.items():
        if not isinstance(band.get("derivation"), str) or not band["derivation"].strip():
            raise AssayError(f"{path}: band for {kind} has no derivation")
        for key in REQUIRED_NUMBERS.get(kind, ()):
            if key not in band:
                raise AssayError(f"{path}: band for {kind} is missing '{key}'")
            if not isinstance(band[key], int | float) or isinstance(band[key], bool):
                raise AssayError(f"{path}: band {kind}.{key} must be a number, got {band[key]!r}")
    if "shuffled_gold" in bands:
        drops = bands["shuffled_gold"].get("min_drop")
        if not isinstance(drops, dict) or "default" not in drops:
            raise AssayError(f"{path}: band shuffled_gold.min_drop needs a 'default' entry")
    return bands


def not_applicable(adapter: str, path: Path = EXPECTED) -> tuple[dict[str, str], bool]:
    """Controls this adapter declares NOT_RUN (kind -> reason), and whether they count as
    allowed without --allow-not-run (the adapter's `allow_not_applicable`, default true)."""
    data = read_yaml(path, "bands file") or {}
    section = (data.get("adapters") or {}).get(adapter) or {}
    declared = section.get("not_applicable") or {}
    allowed = section.get("allow_not_applicable", True)
    if not isinstance(allowed, bool):
        raise AssayError(f"{path}: {adapter}.allow_not_applicable must be true or false")
    return {str(k): str(v) for k, v in declared.items()}, allowed
