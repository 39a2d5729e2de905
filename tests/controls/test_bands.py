"""expected.yaml is refused, in one line naming the file and key, when a band is unusable."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from agent_assay.adapters.system import Facts
from agent_assay.controls.bands import EXPECTED, load_bands
from agent_assay.controls.execute import check_allowed, run_controls
from agent_assay.controls.registry import control_kinds
from agent_assay.errors import AssayError
from agent_assay.store import Store
from tests.support.toy import RichToyAdapter
from tests.support.toyrun import toy_run


def write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "expected.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def shipped() -> dict[str, object]:
    loaded = yaml.safe_load(EXPECTED.read_text())
    assert isinstance(loaded, dict)
    return loaded


def test_every_registered_control_has_a_band_with_a_derivation() -> None:
    bands = load_bands()
    assert set(control_kinds()) <= set(bands.per_kind)
    assert all(band["derivation"].strip() for band in bands.per_kind.values())


def test_missing_band_value_is_named(tmp_path: Path) -> None:
    data = shipped()
    del data["defaults"]["null_agent"]["min_margin"]  # type: ignore[index]
    with pytest.raises(
        AssayError,
        match=r"expected\.yaml:\d+: band for null_agent is missing "
        r"'min_margin'",
    ):
        load_bands(defaults_file=write(tmp_path, data))


def test_malformed_value_is_named(tmp_path: Path) -> None:
    data = shipped()
    data["defaults"]["random_agent"]["sd_factor"] = "three"  # type: ignore[index]
    must_be = r"expected\.yaml:\d+: band random_agent\.sd_factor must be a number"
    with pytest.raises(AssayError, match=must_be):
        load_bands(defaults_file=write(tmp_path, data))


def test_a_band_without_derivation_is_refused(tmp_path: Path) -> None:
    data = shipped()
    data["defaults"]["identical_config"]["derivation"] = ""  # type: ignore[index]
    with pytest.raises(AssayError, match="band for identical_config has no derivation"):
        load_bands(defaults_file=write(tmp_path, data))


def test_malformed_yaml_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "expected.yaml"
    path.write_text("defaults:\n  null_agent: [unclosed\n")
    with pytest.raises(AssayError, match=r"expected\.yaml:\d+: malformed YAML"):
        load_bands(defaults_file=path)


def test_unknown_allow_not_run_kind_is_refused() -> None:
    with pytest.raises(AssayError, match="unknown control kind in --allow-not-run: judge"):
        check_allowed(["judge"])
    assert check_allowed(["judge_calibration"]) == frozenset({"judge_calibration"})


# ---- bands that travel with a system, and --bands FILE --------------------------------------
OVERRIDE = """\
version: 1
null_agent:
  min_margin: 0.5
  derivation: this system's do-nothing agent must be beaten by half the range
"""


def bands_file(tmp_path: Path, text: str, name: str = "bands.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_systems_file_and_then_bands_file_override_the_defaults(tmp_path: Path) -> None:
    system_file = bands_file(tmp_path, OVERRIDE)
    extra = bands_file(
        tmp_path,
        "random_agent:\n  seeds: 6\n  derivation: a quick look\n"
        "not_applicable:\n  judge_calibration: no judge here, by design\n",
        "extra.yaml",
    )
    bands = load_bands(system_file, extra)
    assert bands.get("null_agent")["min_margin"] == 0.5
    assert bands.get("random_agent")["seeds"] == 6
    assert bands.get("random_agent")["sd_factor"] == 3.0  # the default, kept
    assert bands.not_applicable == {"judge_calibration": "no judge here, by design"}
    assert bands.sources == (EXPECTED, system_file, extra)


OWN_BANDS_ENV = "AA_TEST_OWN_BANDS"


class OwnBands(RichToyAdapter):
    """The rich toy with its own bands file, named by OWN_BANDS_ENV (a module-level class,
    so an agent process can rebuild it with no arguments)."""

    @property
    def facts(self) -> Facts:  # type: ignore[override]
        return replace(RichToyAdapter.facts, bands=Path(os.environ[OWN_BANDS_ENV]))


def test_controls_judge_a_system_by_its_own_bands(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.certify import certify

    monkeypatch.setenv(OWN_BANDS_ENV, str(bands_file(tmp_path, OVERRIDE)))
    got = certify(store, OwnBands(), "good")
    assert got["payloads"]["null_agent"]["band"]["min_margin"] == 0.5


def test_a_system_cannot_excuse_itself_from_a_control(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The party under test may say why a control does not apply; only the one certifying
    may accept that. A system's own file declaring null_agent not applicable leaves the run
    inadmissible (exit 3), and a system file that tries to allow it is refused."""
    from agent_assay.controls.execute import run_controls
    from agent_assay.integrity.admissibility import assess
    from tests.support.certify import certify

    excuse = "not_applicable:\n  null_agent: our agent never does nothing\n"
    monkeypatch.setenv(OWN_BANDS_ENV, str(bands_file(tmp_path, excuse, "own.yaml")))
    Excused = OwnBands

    got = certify(store, Excused(), "good")
    null = got["payloads"]["null_agent"]
    assert (null["status"], null["allowed_not_run"]) == ("NOT_RUN", False)
    assert not got["admissible"] and got["exit"] == 3
    assert any("null_agent" in reason for reason in got["reasons"])

    accepted = bands_file(tmp_path, "allow_not_applicable: true\n", "mine.yaml")
    run_controls(store, Excused(), got["run"], bands_file=accepted)
    verdict = assess(store, got["run"])
    assert verdict.outcomes["null_agent"].payload["allowed_not_run"]  # the certifier accepted
    assert not any("without allowance" in reason for reason in verdict.reasons)
    # ... but null_agent is one of the controls no one may waive for an admissible verdict
    assert any(reason.startswith("null_agent NOT_RUN cannot be waived") and
               reason.endswith("allowed by --bands FILE (allow_not_applicable)")
               for reason in verdict.reasons), verdict.reasons

    class SelfAllowed(RichToyAdapter):
        facts = replace(RichToyAdapter.facts, bands=bands_file(
            tmp_path, excuse + "allow_not_applicable: true\n", "self.yaml"))

    with pytest.raises(AssayError, match=r"self.yaml:3: a system's own bands file cannot allow"):
        load_bands(SelfAllowed.facts.bands)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("null_agnet:\n  min_margin: 0.5\n  derivation: x\n", 1, "unknown key 'null_agnet'"),
        ("null_agent:\n  min_margn: 0.5\n  derivation: x\n", 2,
         "unknown key 'min_margn' in the band for null_agent"),
        ("null_agent: 5\n", 1, "the band for null_agent must be a mapping"),
        ("null_agent:\n  min_margin: 0.5\n", 1, "band for null_agent has no derivation"),
        ("null_agent:\n  min_margin: half\n  derivation: x\n", 2, "must be a number"),
        ("null_agent:\n  min_margin: .nan\n  derivation: x\n", 2, "must be finite"),
        ("null_agent:\n  min_margin: -0.1\n  derivation: x\n", 2, "must be in (0, 1]"),
        ("null_agent:\n  min_margin: 0.2\n  min_margin: 0.9\n  derivation: x\n", 3,
         "duplicate key 'min_margin'"),
        ("scorer_selftest:\n  probe_items: 2.7\n  derivation: x\n", 2, "must be a whole number"),
        ("random_agent:\n  seeds: 4\n  derivation: x\n", 2, "must be at least 5"),
        ("random_agent:\n  seeds: 1001\n  derivation: x\n", 2, "must be at most 1000"),
        ("mutation:\n  min_score: -1\n  derivation: x\n", 2, "must be in (0, 1]"),
        ("shuffled_gold:\n  min_drop:\n    default: .nan\n  derivation: x\n", 3,
         "min_drop.default must be finite"),
        ("not_applicable: [mutation]\n", 1, "not_applicable maps kinds to reasons"),
        ("not_applicable:\n  mutaton: because\n", 2, "unknown control kind 'mutaton'"),
        ("allow_not_applicable: sometimes\n", 1, "must be true or false"),
        ("- null_agent\n", None, "a bands file is a mapping"),
    ],
)
def test_a_bad_bands_file_is_one_line_naming_file_line_and_key(
    tmp_path: Path, text: str, line: int | None, message: str
) -> None:
    path = bands_file(tmp_path, text)
    with pytest.raises(AssayError) as refused:
        load_bands(path)
    said = str(refused.value)
    assert "\n" not in said
    assert said.startswith(f"{path}:{line}: " if line else f"{path}: ")
    assert message in said


@pytest.mark.parametrize("seeds", [0, 1, 2, 4])
def test_random_seeds_below_the_floor_is_refused_before_anything_is_stored(
    store: Store, seeds: int
) -> None:
    run = toy_run(store, RichToyAdapter(), "good")
    with pytest.raises(AssayError, match=f"^--random-seeds must be at least 5, got {seeds}: "):
        run_controls(store, RichToyAdapter(), run, random_seeds=seeds)
    assert store.control_outcomes(run.run_id) == {}


@pytest.mark.parametrize("seeds", [1001, 2**70])
def test_random_seeds_past_the_ceiling_are_refused_before_anything_is_stored(
    store: Store, seeds: int
) -> None:
    """2**70 seeds was accepted, and random_agent replayed until the process was killed."""
    run = toy_run(store, RichToyAdapter(), "good")
    with pytest.raises(AssayError, match=f"^--random-seeds must be at most 1000, got {seeds}: "):
        run_controls(store, RichToyAdapter(), run, random_seeds=seeds)
    assert store.control_outcomes(run.run_id) == {}
