"""A witness outside the store catches what a consistent rewrite of the store hides.

One run is certified (ADMISSIBLE), exported, then certified again under stricter bands
(INADMISSIBLE), each with `--witness`. Then the store or its bundle is edited the way its
writer could: the later certification deleted behind the triggers (which are put back),
the chain truncated or re-chained with the header made to match. Every check made from
the store alone passes; `verify --witness` names the run, the block and what the witness
holds. The witness itself is hash-linked: a line rewritten, removed or moved is named, and
a file that is not a witness is refused before anything is written.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_assay import api
from agent_assay.store import Head
from agent_assay.store.evidence import RawReader, append_head
from tests.support.certify import richtoy_named
from tests.support.forge import forgery_of
from tests.support.invoke import Invocation, invoke
from tests.support.tamper import behind_triggers
from tests.support.toy import RichToyAdapter

STRICT = """shuffled_gold:
  min_drop:
    default: 0.25
    outcome.match: 0.9
  derivation: a drop the toy's outcomes cannot make, so this certification fails
"""


@dataclass(frozen=True)
class Witnessed:
    db: Path
    bundle: Path
    """Exported between the two certifications."""
    witness: Path
    run: str
    first: Head
    later: Head


@pytest.fixture(scope="module")
def witnessed(tmp_path_factory: pytest.TempPathFactory) -> Witnessed:
    where = tmp_path_factory.mktemp("witnessed")
    db, witness, bundle = where / "assay.db", where / "witness.jsonl", where / "evidence.jsonl"
    first = api.certify(RichToyAdapter(), store=db, config="good", witness=witness)
    assert first.verdict.word == "ADMISSIBLE", first.verdict.reasons
    run = first.run.run_id
    exported = invoke("export", run, str(bundle), "--db", str(db), "--witness", str(witness))
    assert exported.code == 0, exported.err
    (where / "strict.yaml").write_text(STRICT)
    later = api.certify(RichToyAdapter(), store=db, run=run, bands=where / "strict.yaml",
                        witness=witness)
    assert later.verdict.word == "INADMISSIBLE", later.verdict.reasons
    with sqlite3.connect(db) as con:  # every page in the file itself, so a copy holds it all
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    heads = [forgery_of(bundle).header["head"], api.open_db(db).head(run)]
    assert heads[1] is not None
    return Witnessed(db, bundle, witness, run, Head(**heads[0]), heads[1])


@pytest.fixture
def copy(witnessed: Witnessed, tmp_path: Path) -> Path:
    """A private copy of the store, the one an attacker edits."""
    return Path(shutil.copyfile(witnessed.db, tmp_path / "assay.db"))


def verify(*args: str) -> Invocation:
    result = invoke("verify", *args, "--skip-rescore")
    assert result.traceback is None, result.traceback
    return result


def findings(result: Invocation) -> list[str]:
    return [line for line in result.out.splitlines() if line.startswith("FINDING")]


def test_an_honest_store_and_its_witness_are_clean(witnessed: Witnessed) -> None:
    lines = witnessed.witness.read_text().splitlines()
    assert [line.count('"verdict":"ADMISSIBLE"') for line in lines] == [1, 1, 0]
    result = verify("--db", str(witnessed.db), "--witness", str(witnessed.witness))
    assert result.code == 0, result.out
    assert f"witness {witnessed.witness}: 3 line(s) checked against 1 run(s) held here" \
        in result.out


def test_a_deleted_later_certification_is_named_by_the_witness(
    witnessed: Witnessed, copy: Path
) -> None:
    """The FAILED certification's outcomes and blocks deleted behind the triggers: the
    earlier ADMISSIBLE verdict stands again, and only the witness remembers."""
    first, run = witnessed.first.seq, witnessed.run
    behind_triggers(copy, *(
        f"DELETE FROM {table} WHERE run_id = '{run}' AND block > {first}"
        for table in ("control_outcomes", "mutation_results")
    ), f"DELETE FROM ledger WHERE run_id = '{run}' AND seq > {first}")
    assert "ADMISSIBLE -- " in invoke("report", run, "--db", str(copy)).out
    assert verify("--db", str(copy)).code == 0  # the store alone is consistent
    caught = verify("--db", str(copy), "--witness", str(witnessed.witness))
    assert caught.code == 2
    assert findings(caught) == [
        f"FINDING run {run}: its chain ends at block {first}, but witness line 3 holds block "
        f"{witnessed.later.seq} {witnessed.later.digest} (certification, INADMISSIBLE, "
        f"{_at(witnessed.witness, 3)}): the chain was truncated, a later certification "
        "deleted, or this copy predates it"
    ]


def _at(witness: Path, line: int) -> str:
    return str(json.loads(witness.read_text().splitlines()[line - 1])["at"])


def test_a_bundle_exported_before_a_later_certification_is_named(witnessed: Witnessed) -> None:
    caught = verify(str(witnessed.bundle), "--witness", str(witnessed.witness))
    assert caught.code == 2
    assert [line.split(": its chain ends at block")[0] for line in findings(caught)] == [
        f"FINDING run {witnessed.run}"]


def test_a_truncated_bundle_whose_header_matches_is_named(
    witnessed: Witnessed, tmp_path: Path
) -> None:
    """The last block dropped and the header made to claim what is left: the bundle is
    consistent with itself, the witness is not."""
    forged = forgery_of(witnessed.bundle)
    last = witnessed.first.seq
    forged.drop(lambda line: not (line["row"].get("run_id") == witnessed.run and (
        line["row"].get("block") == last
        or (line["table"] == "ledger" and line["row"]["seq"] == last))))
    forged.header["head"] = forged.head(witnessed.run)
    bundle = forged.seal(tmp_path / "truncated.jsonl")
    assert verify(str(bundle)).code == 0
    caught = verify(str(bundle), "--witness", str(witnessed.witness))
    assert caught.code == 2
    ends = f"its chain ends at block {last - 1}, but witness line"
    assert [ends in line for line in findings(caught)] == [True, True, True]


def test_a_rechained_bundle_whose_header_matches_is_named(
    witnessed: Witnessed, tmp_path: Path
) -> None:
    forged = forgery_of(witnessed.bundle)
    outcome = forged.rows("control_outcomes", witnessed.run)[-1]
    outcome["payload"] = outcome["payload"].replace('"summary":"', '"summary":"(checked) ')
    forged.rechain(witnessed.run)
    forged.header["head"] = forged.head(witnessed.run)
    bundle = forged.seal(tmp_path / "rechained.jsonl")
    assert verify(str(bundle)).code == 0
    caught = verify(str(bundle), "--witness", str(witnessed.witness))
    rewritten = (f"its block {witnessed.first.seq} is {forged.head(witnessed.run)['digest']}, "
                 f"but witness line 1 holds block {witnessed.first.seq} {witnessed.first.digest}")
    assert caught.code == 2 and rewritten in findings(caught)[0], caught.out


@pytest.mark.parametrize("edit,named", [
    ("rewritten", 2), ("removed", 2), ("moved", 1),
])
def test_a_witness_line_rewritten_removed_or_moved_is_named(
    witnessed: Witnessed, tmp_path: Path, edit: str, named: int
) -> None:
    lines = witnessed.witness.read_bytes().splitlines(keepends=True)
    if edit == "rewritten":
        lines[0] = lines[0].replace(b'"verdict":"ADMISSIBLE"', b'"verdict":"INADMISSIBLE"')
    elif edit == "removed":
        del lines[1]
    else:
        lines[0], lines[1] = lines[1], lines[0]
    witness = tmp_path / "witness.jsonl"
    witness.write_bytes(b"".join(lines))
    caught = verify("--db", str(witnessed.db), "--witness", str(witness))
    assert caught.code == 2
    assert f"FINDING witness {witness} line {named}: does not follow the line before it" \
        in findings(caught)[0]


@pytest.mark.parametrize("what", ["bands file", "bundle", "broken witness", "missing directory"])
def test_a_file_that_is_not_an_intact_witness_is_refused_before_anything_is_written(
    witnessed: Witnessed, copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    what: str,
) -> None:
    monkeypatch.setattr("agent_assay.adapters.registry.load_adapter", richtoy_named)
    if what == "bands file":
        target = tmp_path / "strict.yaml"
        target.write_text(STRICT)
    elif what == "bundle":
        target = Path(shutil.copyfile(witnessed.bundle, tmp_path / "evidence.jsonl"))
    elif what == "missing directory":
        target = tmp_path / "absent" / "witness.jsonl"
    else:
        lines = witnessed.witness.read_bytes().splitlines(keepends=True)
        target = tmp_path / "witness.jsonl"
        target.write_bytes(lines[1] + lines[0])
    before = target.read_bytes() if target.exists() else None
    blocks = len(RawReader(api.open_db(copy)).ledger(witnessed.run))
    out = tmp_path / "out.jsonl"
    for args in (["export", witnessed.run, str(out)],
                 ["controls", "run", "--adapter", "richtoy", "--run", witnessed.run]):
        refused = invoke(*args, "--db", str(copy), "--witness", str(target))
        assert refused.traceback is None, refused.traceback
        assert refused.code == 1 and len(refused.err.strip().splitlines()) == 1, refused.err
        assert str(target) in refused.err and refused.out == ""
    assert (target.read_bytes() if target.exists() else None) == before and not out.exists()
    assert len(RawReader(api.open_db(copy)).ledger(witnessed.run)) == blocks


def test_lines_of_runs_not_held_are_a_note_and_each_line_links_the_last(
    witnessed: Witnessed, tmp_path: Path
) -> None:
    witness = Path(shutil.copyfile(witnessed.witness, tmp_path / "witness.jsonl"))
    assert append_head(witness, "elsewhere", Head(3, "ab" * 32), "ADMISSIBLE", "export") == 4
    result = verify("--db", str(witnessed.db), "--witness", str(witness))
    assert result.code == 0, result.out
    assert "note: witness" in result.out and "1 line(s) name 1 run(s) not held here" in result.out
    lines = witness.read_bytes().splitlines(keepends=True)
    assert json.loads(lines[3])["prev"] == hashlib.sha256(lines[2]).hexdigest()


WITNESS_CASES = 15


@st.composite
def damaged_witness(draw: st.DrawFn, honest: bytes) -> bytes:
    """The witness with one edit: bytes flipped, cut or spliced in, a line dropped or
    doubled, a value replaced, or a key given twice."""
    lines = honest.splitlines(keepends=True)
    at = draw(st.integers(0, len(lines) - 1))
    kind = draw(st.sampled_from(["flip", "cut", "splice", "drop", "double", "value",
                                 "repeated key"]))
    if kind == "flip":
        offset = draw(st.integers(0, len(honest) - 1))
        return honest[:offset] + bytes([honest[offset] ^ draw(st.integers(1, 255))]) + \
            honest[offset + 1:]
    if kind == "cut":
        return honest[:draw(st.integers(0, len(honest) - 1))]
    if kind == "splice":
        offset = draw(st.integers(0, len(honest)))
        junk = draw(st.sampled_from([b"\xff\xfe", b"\n", b"{}", b"\x00", b'"\\udc80"']))
        return honest[:offset] + junk + honest[offset:]
    if kind in ("drop", "double"):
        lines[at:at + 1] = [] if kind == "drop" else [lines[at], lines[at]]
        return b"".join(lines)
    data = json.loads(lines[at])
    if kind == "value":
        data[draw(st.sampled_from(sorted(data)))] = draw(st.sampled_from(
            [None, 0, -1, 2**70, "", "x" * 64, [], {}, {"seq": -1, "digest": "ab" * 32}]))
        lines[at] = (json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n").encode()
    else:
        lines[at] = lines[at].replace(b"{", b'{"run_id":"x",', 1)
    return b"".join(lines)


def test_damaged_witnesses_are_named_or_refused_in_one_line(
    witnessed: Witnessed, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    """Whatever a witness file holds, `verify --witness` names the witness's broken lines,
    or refuses the file in one line naming it; never a traceback, and a clean verify only
    when every line but the last is as written."""
    honest = witnessed.witness.read_bytes()
    seen: Counter[str] = Counter()

    @settings(max_examples=WITNESS_CASES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=damaged_witness(honest))
    def case(data: bytes) -> None:
        witness = tmp_path / "witness.jsonl"
        witness.write_bytes(data)
        done = verify(witnessed.run, "--db", str(witnessed.db), "--witness", str(witness))
        errors = [line for line in done.err.splitlines() if line.startswith("error: ")]
        if done.code == 0:
            # what the file alone cannot show: its last line rewritten (a field no check
            # reads, such as when), or the file cut after a line; where it is kept shows it
            kept = data.splitlines(keepends=True)
            assert kept[:-1] == honest.splitlines(keepends=True)[:max(len(kept) - 1, 0)], \
                done.out
            seen["clean" if data == honest else "clean (its last line edited or cut)"] += 1
        elif errors:
            assert done.code == 1 and errors == done.err.strip().splitlines(), done.err
            assert str(witness) in errors[0], errors
            seen["refused in one line"] += 1
        else:
            assert done.code == 2 and (f"FINDING witness {witness} line " in done.out
                                       or "FINDING run " in done.out), done.out
            seen["named"] += 1

    case()
    record_property("summary", f"witness fuzz: {WITNESS_CASES} damaged witnesses: " + ", ".join(
        f"{n} {k}" for k, n in sorted(seen.items())))
    assert sum(seen.values()) == WITNESS_CASES
