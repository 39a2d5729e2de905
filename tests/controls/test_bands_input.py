"""Hostile bands files: one line naming the file, the line and the key, and nothing stored.

Each case was a traceback (an unconvertible scalar, a NUL, a recursive alias, deep
nesting, an unknown kind under `defaults`), a slow accept (an alias bomb), or a message
without the line or with the codec's wording. `controls run` refuses a bad bands file
before it makes a run, and refuses a --config that is not the --run's.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from agent_assay.controls.bands import load_bands
from agent_assay.errors import AssayError
from tests.support.invoke import invoke
from tests.support.refusals import one_line


def bomb(levels: int = 6, width: int = 9) -> str:
    """A "billion laughs" file: `width ** levels` values once its aliases are expanded."""
    rows = [f"l0: &l0 [{', '.join(['x'] * width)}]"]
    rows += [f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * width)}]" for n in range(1, levels + 1)]
    return "null_agent:\n  derivation: x\n  laughs:\n" + "".join(f"    {r}\n" for r in rows)


OVERRIDES: dict[str, tuple[bytes | str, int | None, str]] = {
    "adapters_list": ("adapters: {x: [1, 2]}\n", 1, "unknown key 'adapters'"),
    "adapters_number": ("adapters: {banking: {null_agent: 5}}\n", 1, "unknown key 'adapters'"),
    "not_utf8": (b"\xff\xfenull_agent: 1\n", 1, "bands file is not UTF-8 text (byte 0xff at "
                 "offset 0)"),
    "latin1": ("null_agent:\n  derivation: café\n".encode("latin-1"), 2,
               "bands file is not UTF-8 text (byte 0xe9 at offset 29)"),
    "nul": ("null_agent:\n  derivation: a\x00b\n", 2,
            "holds a character YAML does not allow (#x0000 at offset 27)"),
    "tab": ("null_agent:\n\tmin_margin: 0.5\n", 2, "found character '\\t'"),
    "scalar": ("5\n", None, "a bands file is a mapping of control kinds to bands"),
    "huge_int": (f"null_agent:\n  min_margin: {'9' * 5000}\n  derivation: x\n", 2,
                 "cannot read '99999999999999999999'... (5000 long) as int"),
    "bad_date": ("null_agent:\n  derivation: 2020-13-45\n", 2,
                 "cannot read '2020-13-45' as timestamp"),
    "recursive_alias": ("null_agent: &a\n  derivation: x\n  again: *a\n", 3,
                        "has an alias inside its own anchor, a value that contains itself"),
    "deep": ("null_agent: " + "[" * 3000 + "]" * 3000 + "\n", None,
             "bands file is nested too deeply to read"),
    "bomb": (bomb(), 9, "holds more than 100000 values once its aliases are expanded"),
    "version": ("version: 2\n", 1, "version must be 1, got 2"),
    "list_key": ("? [a, b]\n: 1\n", 1, "a mapping key must be a plain value"),
}

DEFAULTS: dict[str, tuple[str, int | None, str]] = {
    "empty": ("defaults: {}\n", 1,
              "defaults has no band for headline_agreement, identical_config, "),
    "a_list": ("defaults: []\n", 1, "expected a mapping with a 'defaults' section"),
    "unknown_kind": ("defaults:\n  bogus: {derivation: x}\n", 2, "unknown control kind 'bogus'"),
    "unknown_top": ("defaults: {}\nextra: 1\n", 2, "unknown key 'extra' in a defaults file"),
}


@pytest.mark.parametrize("name", list(OVERRIDES))
def test_a_hostile_bands_file_is_one_line(tmp_path: Path, name: str) -> None:
    content, line, message = OVERRIDES[name]
    path = tmp_path / "bands.yaml"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(AssayError) as refused:  # the bomb's message says it was not expanded
        load_bands(None, path)
    one_line(path, line, str(refused.value), message)


@pytest.mark.parametrize("name", list(DEFAULTS))
def test_a_bad_defaults_file_is_one_line(tmp_path: Path, name: str) -> None:
    text, line, message = DEFAULTS[name]
    path = tmp_path / "expected.yaml"
    path.write_text(text)
    with pytest.raises(AssayError) as refused:
        load_bands(defaults_file=path)
    one_line(path, line, str(refused.value), message)


def test_a_directory_is_named_as_one(tmp_path: Path) -> None:
    with pytest.raises(AssayError) as refused:
        load_bands(None, tmp_path)
    assert str(refused.value) == f"{tmp_path}: bands file is a directory, not a file"


def test_a_modest_alias_or_merge_is_read_as_yaml_means_it(tmp_path: Path) -> None:
    path = tmp_path / "bands.yaml"
    path.write_text(
        "null_agent:\n  min_margin: &m 0.5\n  derivation: &why shared\n"
        "mutation:\n  min_score: *m\n  derivation: *why\n"
    )
    assert load_bands(None, path).get("mutation")["min_score"] == 0.5
    path.write_text(
        "null_agent: &band\n  min_margin: 0.5\n  derivation: shared\n"
        "mutation:\n  <<: *band\n  min_score: 0.9\n"
    )
    with pytest.raises(AssayError, match=r"bands\.yaml:4: unknown key 'min_margin' in the band "
                       "for mutation"):
        load_bands(None, path)  # merged, then checked like any other key


# ---- through the CLI -----------------------------------------------------------------------
def counts(db: Path) -> list[int]:
    """Rows in runs and in control_outcomes."""
    with sqlite3.connect(db) as con:
        return [con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in ("runs", "control_outcomes")]


def test_controls_run_refuses_a_bad_bands_file_before_making_a_run(tmp_path: Path,
                                                                   toy_db: tuple[Path, str]
                                                                   ) -> None:
    bands, db = tmp_path / "bands.yaml", tmp_path / "fresh.db"
    bands.write_bytes(b"null_agent:\n  derivation: caf\xe9\n")
    got = invoke("controls", "run", "--adapter", "toy", "--config", "good", "--bands", str(bands),
                 "--db", str(db))
    assert got.traceback is None, got.traceback
    assert got.err == f"error: {bands}:2: bands file is not UTF-8 text (byte 0xe9 at offset 29)\n"
    assert got.code != 0 and not db.exists()  # the store the command opened is taken away


def test_controls_run_refuses_a_config_that_is_not_the_runs(tmp_path: Path,
                                                            toy_db: tuple[Path, str]) -> None:
    base, run_id = toy_db
    db = tmp_path / "assay.db"
    shutil.copyfile(base, db)
    got = invoke("controls", "run", "--adapter", "toy", "--config", "bad", "--run", run_id,
                 "--db", str(db))
    assert got.traceback is None, got.traceback
    assert got.err == (f"error: --config bad does not match run {run_id}'s config good; drop "
                       "--config or pass the matching one\n")
    assert got.code != 0 and counts(db) == [1, 0]
