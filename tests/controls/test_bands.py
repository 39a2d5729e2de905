"""expected.yaml is refused, in one line naming the file and key, when a band is unusable."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from agent_assay.controls.bands import EXPECTED, load_bands
from agent_assay.controls.execute import check_allowed
from agent_assay.controls.registry import control_kinds
from agent_assay.errors import AssayError


def write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "expected.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def shipped() -> dict[str, object]:
    loaded = yaml.safe_load(EXPECTED.read_text())
    assert isinstance(loaded, dict)
    return loaded


def test_every_registered_control_has_a_band_with_a_derivation() -> None:
    bands = load_bands("banking")
    assert set(control_kinds()) <= set(bands)
    assert all(band["derivation"].strip() for band in bands.values())


def test_missing_band_value_is_named(tmp_path: Path) -> None:
    data = shipped()
    del data["defaults"]["null_agent"]["min_margin"]  # type: ignore[index]
    with pytest.raises(
        AssayError,
        match=r"expected\.yaml: band for null_agent is missing "
        r"'min_margin'",
    ):
        load_bands("banking", write(tmp_path, data))


def test_malformed_value_is_named(tmp_path: Path) -> None:
    data = shipped()
    data["defaults"]["random_agent"]["sd_factor"] = "three"  # type: ignore[index]
    with pytest.raises(AssayError, match=r"random_agent\.sd_factor must be a number"):
        load_bands("banking", write(tmp_path, data))


def test_a_band_without_derivation_is_refused(tmp_path: Path) -> None:
    data = shipped()
    data["defaults"]["identical_config"]["derivation"] = ""  # type: ignore[index]
    with pytest.raises(AssayError, match="band for identical_config has no derivation"):
        load_bands("banking", write(tmp_path, data))


def test_malformed_yaml_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "expected.yaml"
    path.write_text("defaults:\n  null_agent: [unclosed\n")
    with pytest.raises(AssayError, match=r"expected\.yaml:\d+: malformed YAML"):
        load_bands("banking", path)


def test_unknown_allow_not_run_kind_is_refused() -> None:
    with pytest.raises(AssayError, match="unknown control kind in --allow-not-run: judge"):
        check_allowed(["judge"])
    assert check_allowed(["judge_calibration"]) == frozenset({"judge_calibration"})


def test_exit_codes_say_an_incomplete_verdict_before_a_negative_one() -> None:
    from agent_assay.controls.execute import controls_exit_code

    passed = {"status": "PASSED"}
    not_run = {"status": "NOT_RUN", "allowed_not_run": False}
    allowed = {"status": "NOT_RUN", "allowed_not_run": True}
    assert controls_exit_code(True, [passed, allowed]) == 0
    assert controls_exit_code(False, [passed, not_run]) == 3
    assert controls_exit_code(False, [{"status": "FAILED"}, not_run]) == 3
    assert controls_exit_code(False, [{"status": "FAILED"}, allowed]) == 2
    assert controls_exit_code(False, [{"status": "ERROR"}, passed]) == 2
