"""Choosing what to run without editing code (issue #37): items by id, file and glob;
-M settings in the config hash; run-id prefixes; AGENT_ASSAY_DB; no silent adapter; the
controls' progress. Every command runs in this process, on the toy systems."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_assay.adapters import registry
from agent_assay.errors import AssayError
from agent_assay.runner import build_and_store_suite, resolve_config
from agent_assay.selection import Selection
from agent_assay.store import Store, open_store
from tests.support.dists import write_dist
from tests.support.invoke import Invocation, invoke, on_path
from tests.support.toy import KnobToy, ToyAdapter, toy_items

TOY = ("--adapter", "toy", "--config", "good")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("choosing")
    where = write_dist(home / "site", "choosing", {"toy": "tests.support.toy:ToyAdapter",
                                                   "knobs": "tests.support.toy:KnobToy"})
    with on_path(where):
        yield home


def ok(*args: str) -> Invocation:
    done = invoke(*args)
    assert done.traceback is None, done.traceback
    assert done.code == 0, done.err
    return done


def refused(*args: str) -> str:
    """The one error line of a refused command."""
    done = invoke(*args)
    assert done.traceback is None, done.traceback
    assert done.code != 0
    lines = done.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.err
    return lines[0]


def run_of(db: Path, done: Invocation) -> tuple[str, ...]:
    store = open_store(str(db))
    try:
        return store.get_run(done.out.split()[-1]).item_ids
    finally:
        store.close()


def runs_in(db: Path) -> int:
    if not db.exists():
        return 0
    store = open_store(str(db))
    try:
        return len(store.run_ids())
    finally:
        store.close()


# ---- item selection ------------------------------------------------------------------------
def test_selection_composes_in_its_documented_order() -> None:
    items = toy_items()  # on-L1, on-L2, on-L3 (tag on) and off-L4 (tag off)
    ids = [i.item_id for i in Selection(ids=("on-L3", "off-L4"), patterns=("on-L[12]",),
                                        tags=("on",), limit=2).choose(items)]
    assert ids == ["on-L1", "on-L2"]  # union, then the tag, then the first two by id
    given_backwards = Selection(ids=("on-L2", "off-L4", "on-L1")).choose(reversed(items))
    assert [i.item_id for i in given_backwards] == ["off-L4", "on-L1", "on-L2"]
    assert Selection.of(ids="on-L1").choose(items)[0].item_id == "on-L1"  # not o, n, -, ...


def test_items_by_id_file_and_glob_enter_the_runs_definition(site: Path, tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    by_id = ok("run", *TOY, "--items", "off-L4", "--items", "on-L2, on-L1", "--db", str(db))
    assert run_of(db, by_id) == ("off-L4", "on-L1", "on-L2")
    listed = tmp_path / "ids.txt"
    listed.write_text("\ufeff# the first lamp\n\non-L1   # switched on\noff-L4\n")
    chosen = ok("run", *TOY, "--items-file", str(listed), "--match", "on-L[3]", "--tag", "on",
                "--db", str(db))
    assert run_of(db, chosen) == ("on-L1", "on-L3")
    # runs over different items are refused a comparison, as with --tag and --limit
    compared = invoke("compare", by_id.out.split()[-1], chosen.out.split()[-1], "--db", str(db))
    assert compared.code != 0 and "item selections differ: 3 items vs 2 items" in compared.out


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--items", "on-L1,nope"), "error: unknown item id nope: no such item in the suite "
                                    "(4 items)"),
        (("--items", "of-L4"), "error: unknown item id of-L4: no such item in the suite "
                               "(4 items); did you mean off-L4?"),
        (("--items", "on-L1,,off-L4"), "error: --items on-L1,,off-L4: an empty item id"),
        (("--match", "refund-*"), "error: --match refund-* matches no item in the suite"),
        (("--items", "off-L4", "--tag", "on"), "error: no item in the suite that "
                                               "--items/--match chose carries tag(s): on"),
        (("--items-file", "MISSING"), "error: MISSING: --items-file not found"),
        (("--items-file", "COMMENTS"), "error: COMMENTS: --items-file names no item id"),
        (("--items-file", "BINARY"), "error: BINARY:3: --items-file is not UTF-8 text"),
    ],
)
def test_a_bad_selection_is_one_line_and_makes_no_run(
    site: Path, tmp_path: Path, args: tuple[str, ...], expected: str
) -> None:
    files = {"MISSING": tmp_path / "absent.txt", "COMMENTS": tmp_path / "comments.txt",
             "BINARY": tmp_path / "binary.txt"}
    files["COMMENTS"].write_text("# nothing yet\n\n   # still nothing\n")
    files["BINARY"].write_bytes(b"on-L1\noff-L4\non-\xff\n")
    args = tuple(str(files[a]) if a in files else a for a in args)
    expected = next((expected.replace(k, str(v)) for k, v in files.items() if k in expected),
                    expected)
    db = tmp_path / "a.db"
    for command in (("run", *TOY), ("controls", "run", *TOY)):
        assert refused(*command, *args, "--db", str(db)).startswith(expected)
    assert runs_in(db) == 0


def test_mutate_mutates_only_the_items_chosen(site: Path, toy_db: tuple[Path, str],
                                              tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    db.write_bytes(toy_db[0].read_bytes())
    line = refused("mutate", "--run", toy_db[1], "--match", "zz*", "--db", str(db))
    assert line == f"error: --match zz* matches no item of run {toy_db[1]} (4 items, e.g. " \
                   "off-L4, on-L1, on-L2)"
    done = ok("mutate", "--run", toy_db[1][:6], "--items", "on-L1", "--json", "--db", str(db))
    altered = {row["operator"]: row["altered"] for row in json.loads(done.out)["operators"]}
    assert altered and set(altered.values()) <= {0, 1}  # one item of four was mutated


# ---- -M settings -----------------------------------------------------------------------------
def test_settings_enter_the_config_hash_whatever_their_order() -> None:
    knobs = KnobToy()
    plain = resolve_config(knobs, "good").config_hash
    one = resolve_config(knobs, "good", {"patience": "3", "loud": "yes"})
    other_order = resolve_config(knobs, "good", {"loud": "true", "patience": 3})
    assert one.config_hash == other_order.config_hash != plain
    assert one.params["patience"] == 3 and one.params["loud"] is True
    assert resolve_config(knobs, "good", {"patience": "4"}).config_hash not in (
        plain, one.config_hash)
    assert resolve_config(knobs, "good", {"patience": "2"}).config_hash == plain  # its default


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ("nope=1", "error: -M nope: config good of adapter knobs declares no such setting "
                   "(settable: loud, mode, patience, warmth)"),
        ("fixed=x", "error: -M fixed: config good of adapter knobs declares no such setting"),
        ("patience=2.5", "error: -M patience=2.5: patience takes an integer"),
        ("warmth=nan", "error: -M warmth=nan: warmth takes a number (finite)"),
        ("loud=maybe", "error: -M loud=maybe: loud takes a boolean (true, yes, on, 1, false"),
        ("mode=\udcff", "error: -M mode='\\udcff': the value is not valid UTF-8"),
        ("patience", "error: -M patience: a setting is KEY=VALUE"),
    ],
)
def test_a_bad_setting_is_one_line_naming_key_and_type(
    site: Path, tmp_path: Path, setting: str, expected: str
) -> None:
    db = tmp_path / "a.db"
    for command in ("run",), ("controls", "run"):
        line = refused(*command, "--adapter", "knobs", "--config", "good", "-M", setting,
                       "--db", str(db))
        assert line.startswith(expected), line
    twice = refused("run", "--adapter", "knobs", "--config", "good", "-M", "patience=1",
                    "--set", "patience=2", "--db", str(db))
    assert twice == "error: -M patience is given twice"
    assert runs_in(db) == 0


def test_settings_reach_the_agent_and_are_shown_where_the_run_is_read(
    site: Path, tmp_path: Path
) -> None:
    db = tmp_path / "a.db"
    made = ok("run", "--adapter", "knobs", "--config", "good", "-M", "mode=wrong_arg",
              "--set", "patience=7", "--items", "on-L1", "--db", str(db))
    run_id = made.out.split()[-1]
    store = open_store(str(db))
    (trajectory,) = store.trajectories(run_id)
    assert trajectory.steps[-1].call.args == {"lamp": "L2"}  # the wrong_arg agent ran
    assert store.get_config(store.get_run(run_id).config_hash).params["patience"] == 7
    store.close()
    shown = ok("runs", "show", run_id, "--db", str(db)).out
    assert '  settings = {"mode": "wrong_arg", "patience": 7}' in shown
    report = ok("report", run_id, "--exit-zero", "--db", str(db)).out  # never certified
    assert 'settings (-M): mode="wrong_arg"  patience=7' in report
    # a run keeps its definition: certifying it under other settings, or resuming it over
    # other items, is refused
    other = refused("controls", "run", "--run", run_id, "-M", "patience=8", "--db", str(db))
    assert other == (f"error: -M patience=8 does not match run {run_id}'s config (made with "
                     "-M mode=wrong_arg -M patience=7); drop -M or pass the run's")
    resumed = refused("run", "--resume", run_id, "--items", "on-L2", "--db", str(db))
    assert resumed.startswith("error: --resume goes on with the run as it was defined")


@pytest.mark.usefixtures("same_cases_in_any_run")
def test_any_text_typed_is_a_value_or_one_refusal(lookalikes: tuple[Store, str, str]) -> None:
    """Whatever is typed after -M KEY=, after --items or --match, or as a run id, the
    answer is a value or an AssayError; never another exception (a traceback)."""
    store = lookalikes[0]
    knobs, items = KnobToy(), toy_items()
    text = st.text(max_size=12) | st.sampled_from(["nan", "-inf", "1e999", "9" * 5000, "٣",
                                                   " 3 ", "True", "\udcff", "on-L*", "[", "%"])

    @settings(max_examples=150, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(key=st.sampled_from(["mode", "patience", "warmth", "loud"]), value=text)
    def case(key: str, value: str) -> None:
        for attempt in (
            lambda: resolve_config(knobs, "good", {key: value}),
            lambda: Selection(ids=(value,), patterns=(value,)).choose(items),
            lambda: store.get_run(value),
        ):
            try:
                attempt()
            except AssayError as exc:
                assert "\n" not in str(exc)

    case()


# ---- run ids -------------------------------------------------------------------------------
@pytest.fixture
def lookalikes(store: Store) -> tuple[Store, str, str]:
    """Two runs whose ids share their first five characters."""
    toy = ToyAdapter()
    suite = build_and_store_suite(store, toy, None)
    config = resolve_config(toy, "good")
    store.put_config(config)
    made = [store.create_run(adapter="toy", suite_hash=suite.suite_hash,
                             config_hash=config.config_hash, config_name="good", repeats=1,
                             seed=0, item_ids=["on-L1"], env={}, affects_results=(),
                             run_id=run_id)
            for run_id in ("abcde" + "1" * 27, "abcde" + "2" * 27)]
    return store, made[0].run_id, made[1].run_id


def test_a_unique_prefix_names_a_run_and_anything_else_is_one_line(
    lookalikes: tuple[Store, str, str],
) -> None:
    store, first, second = lookalikes
    assert store.get_run("abcde1").run_id == first
    assert store.get_run(second).run_id == second
    with pytest.raises(AssayError) as ambiguous:
        store.get_run("abcde")
    assert str(ambiguous.value) == (f"run id prefix abcde is ambiguous: it starts 2 runs "
                                    f"({first}, {second}); give more characters")
    with pytest.raises(AssayError, match=r"^run id prefix abc is too short: give at least 4 "):
        store.get_run("abc")
    with pytest.raises(AssayError, match=r"^unknown run id: abcde3$"):
        store.get_run("abcde3")
    with pytest.raises(AssayError, match=r"^unknown run id: %%%%$"):  # not a LIKE pattern
        store.get_run("%%%%")


RUN_ID_COMMANDS = [
    ("report", "RUN"), ("runs", "show", "RUN"), ("verify", "RUN"), ("score", "RUN"),
    ("export", "RUN", "BUNDLE"), ("compare", "RUN", "RUN"), ("controls", "show", "RUN"),
    ("trajectories", "show", "RUN", "on-L1"), ("mutation", "score", "RUN"),
    ("plan", "--run", "RUN", "--effect", "0.1"), ("run", "--resume", "RUN"),
    ("controls", "run", "--run", "RUN"), ("mutate", "--run", "RUN"),
]


@pytest.mark.parametrize("command", RUN_ID_COMMANDS, ids=" ".join)
def test_a_run_id_no_run_can_have_is_one_line_on_every_command(
    site: Path, toy_db: tuple[Path, str], tmp_path: Path, command: tuple[str, ...]
) -> None:
    db = tmp_path / "a.db"
    db.write_bytes(toy_db[0].read_bytes())
    for bad, why in (("x" * 300, r"x{40}\.\.\. \(300 characters\) is too long"),
                     ("\udcff\udcfe", r"'\\udcff\\udcfe' is not valid UTF-8"),
                     ("ab\ncd", r"'ab\\ncd' holds a control character")):
        args = [bad if a == "RUN" else str(tmp_path / "b.jsonl") if a == "BUNDLE" else a
                for a in command]
        assert re.match(f"^error: not a run id: {why}", refused(*args, "--db", str(db)))
    assert not (tmp_path / "b.jsonl").exists()


@pytest.mark.parametrize(
    "command",
    [("report", "RUN"), ("runs", "show", "RUN"), ("verify", "RUN"), ("export", "RUN", "BUNDLE"),
     ("trajectories", "show", "RUN", "on-L1"), ("plan", "--run", "RUN", "--effect", "0.1"),
     ("score", "RUN")],
    ids=" ".join,
)
def test_every_command_reads_a_run_by_a_prefix(
    site: Path, toy_db: tuple[Path, str], tmp_path: Path, command: tuple[str, ...]
) -> None:
    db = tmp_path / "a.db"
    db.write_bytes(toy_db[0].read_bytes())
    run_id = toy_db[1]
    args = [run_id[:6] if a == "RUN" else str(tmp_path / "b.jsonl") if a == "BUNDLE" else a
            for a in command]
    done = invoke(*args, "--db", str(db))
    assert done.traceback is None, done.traceback
    assert run_id in done.out + done.err  # the whole id: the prefix was resolved to the run


def test_a_prefix_of_a_run_is_that_run(site: Path, toy_db: tuple[Path, str]) -> None:
    db, run_id = toy_db
    line = refused("compare", run_id[:4], run_id, "--db", str(db))
    assert line == f"error: cannot compare run {run_id} with itself"


# ---- the store from the environment ---------------------------------------------------------
def test_agent_assay_db_names_the_store_and_db_wins(
    site: Path, toy_db: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AGENT_ASSAY_DB", str(toy_db[0]))
    assert toy_db[1] in ok("runs", "list").out
    other = tmp_path / "other.db"
    ok("suite", "build", "--adapter", "toy", "--db", str(other))
    assert toy_db[1] not in ok("runs", "list", "--db", str(other)).out
    assert not (tmp_path / "run").exists()  # the default store was never touched
    assert "env var: AGENT_ASSAY_DB" in ok("run", "--help").out


# ---- the adapter -----------------------------------------------------------------------------
def test_no_adapter_is_chosen_silently(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = str(tmp_path / "a.db")
    line = refused("run", "--config", "good", "--db", db)
    registered = line.split("registered (", 1)[1].rstrip(")").split(", ")
    assert line.startswith("error: --adapter is needed: ") and {"toy", "knobs"} <= set(registered)
    assert registered == registry.adapter_names()
    only = {"toy": registry._entry_points()["toy"]}
    monkeypatch.setattr(registry, "_entry_points", lambda: only)
    assert "adapter toy 1.0.0: 4 items" in ok("suite", "build", "--db", db).out
    monkeypatch.setattr(registry, "_entry_points", dict)
    assert refused("suite", "build", "--db", db).startswith("error: no adapter is registered")


# ---- controls run --------------------------------------------------------------------------
def test_controls_run_takes_settings_and_items_and_shows_each_control(
    site: Path, tmp_path: Path
) -> None:
    db = tmp_path / "a.db"
    done = invoke("controls", "run", "--adapter", "knobs", "--config", "good", "-M",
                  "patience=5", "--items", "on-L1,off-L4", "--json", "--db", str(db))
    assert done.traceback is None, done.traceback
    certified = json.loads(done.out)  # stdout is the document and nothing else
    store = open_store(str(db))
    run = store.get_run(certified["run_id"])
    assert run.item_ids == ("off-L4", "on-L1") and run.env["settings"] == {"patience": 5}
    store.close()
    lines = [line for line in done.err.splitlines() if line.startswith("control ")]
    numbers = [re.match(r"^control (\d+)/(\d+) [a-z_]+: [A-Z_]+ \(\d", line) for line in lines]
    assert all(numbers) and len(lines) == int(numbers[0].group(2))  # type: ignore[union-attr]
    assert [int(m.group(1)) for m in numbers] == list(range(1, len(lines) + 1))  # type: ignore[union-attr]
    assert "left)" in lines[0] and "left" not in lines[-1]
