"""A bundle proves itself from its rows: every forgery of one is TAMPERED, exit 2, no traceback.

Each test starts from the bundle of one certified (ADMISSIBLE) run and edits it as someone
holding only the file would (`tests/support/forge.py`): rows edited and re-chained with the
project's own digest functions, the header edited, rows dropped or added, and the file
digest line re-sealed so the file check passes. `verify BUNDLE` and every form of
`report BUNDLE` must then say TAMPERED (or refuse in one line) and exit 2, and the head
they print is the one the rows derive, never the one the header claims.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_assay.hashing import canonical_json
from agent_assay.store import open_store
from tests.support.certify import certify
from tests.support.forge import Forgery, forgery_of
from tests.support.invoke import Invocation, invoke
from tests.support.toy import RichToyAdapter

HEADER_FINDING = "bundle header: claims chain head"


@dataclass(frozen=True)
class Published:
    bundle: Path
    run: str
    head: dict[str, object]
    """The head `export` printed: what a paper would publish beside the numbers."""


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Published:
    where = tmp_path_factory.mktemp("published")
    store = open_store(str(where / "assay.db"))
    got = certify(store, RichToyAdapter(), "good")
    assert got["admissible"], got["reasons"]
    run = got["run"].run_id
    store.close()
    bundle = where / "evidence.jsonl"
    written = invoke("export", run, str(bundle), "--db", str(where / "assay.db"))
    assert written.code == 0, written.err
    return Published(bundle, run, forgery_of(bundle).header["head"])


def checked(bundle: Path) -> list[Invocation]:
    """verify, and report as text, JSON, CSV and HTML, on `bundle`."""
    page = bundle.with_suffix(".html")
    return [
        invoke("verify", str(bundle), "--skip-rescore"),
        invoke("report", str(bundle)),
        invoke("report", str(bundle), "--json"),
        invoke("report", str(bundle), "--csv"),
        invoke("report", str(bundle), "--html", str(page)),
    ]


def assert_tampered(bundle: Path) -> list[Invocation]:
    """Every command on `bundle` says TAMPERED (or refuses it in one line), exit 2."""
    results = checked(bundle)
    verify, text, as_json, as_csv, _ = results
    for result in results:
        assert result.traceback is None, result.traceback
        assert result.code == 2, (result.out, result.err)
    refused = [r.err for r in results if r.err.startswith("error: ")]
    if refused:  # the rows did not load: one line, every time
        assert len(refused) == 5 and all(len(e.strip().splitlines()) == 1 for e in refused)
        assert all("-- TAMPERED" in e for e in refused), refused
        return results
    assert verify.out.splitlines()[-1].endswith("the store does not match its own evidence")
    assert text.out.startswith("!!! TAMPERED") or "\n!!! TAMPERED" in text.out, text.out
    assert json.loads(as_json.out)["tampered"] is True
    assert "is TAMPERED" in as_csv.err and as_csv.out == ""
    assert "TAMPERED" in bundle.with_suffix(".html").read_text()
    return results


def said_head(result: Invocation) -> str:
    """The head the bundle notice on stderr says its rows derive."""
    line = next(x for x in result.err.splitlines() if x.startswith("bundle of run"))
    return line.rsplit(": ", 1)[1]


def test_an_honest_bundle_says_the_head_it_holds_and_is_clean(published: Published) -> None:
    verify, text, as_json, as_csv, _ = checked(published.bundle)
    assert verify.code == 0 and text.code == 0 and as_csv.code == 0, verify.out
    assert json.loads(as_json.out)["tampered"] is False
    assert said_head(verify) == f"{published.head['seq']} {published.head['digest']}"


@pytest.mark.parametrize("edit", ["control outcome", "score"])
def test_a_rechained_bundle_claiming_the_published_head_is_tampered(
    published: Published, tmp_path: Path, edit: str
) -> None:
    """Rows edited, every row and block digest recomputed in order, the header left
    claiming the head that was published: the chain verifies, the head does not."""
    forged = forgery_of(published.bundle)
    if edit == "control outcome":
        outcome = forged.rows("control_outcomes", published.run)[-1]
        outcome["payload"] = outcome["payload"].replace('"summary":"', '"summary":"(checked) ')
    else:
        scores = forged.rows("score_sets", published.run)[0]
        scores["packed_values"] = "000000000000e03f" + scores["packed_values"][16:]
    forged.rechain(published.run)
    assert forged.header["head"] == published.head != forged.head(published.run)
    results = assert_tampered(forged.seal(tmp_path / "rechained.jsonl"))
    assert HEADER_FINDING in results[0].out
    derived = forged.head(published.run)
    for result in results:
        assert said_head(result) == f"{derived['seq']} {derived['digest']}"


def test_a_resealed_bundle_is_tampered_under_every_report(
    published: Published, tmp_path: Path
) -> None:
    """A trajectory edited and the file digest recomputed, nothing re-chained: `report`
    used to stop on a traceback ("cannot start a transaction within a transaction")."""
    forged = forgery_of(published.bundle)
    trajectory = forged.rows("trajectories", published.run)[0]
    trajectory["payload"] = trajectory["payload"].replace('"outcome":"', '"outcome":"x')
    results = assert_tampered(forged.seal(tmp_path / "resealed.jsonl"))
    assert "content does not match its digest" in results[1].out


def test_a_header_claiming_another_head_is_tampered(published: Published, tmp_path: Path) -> None:
    forged = forgery_of(published.bundle)
    forged.header["head"] = {"seq": 25, "digest": "ab" * 32}
    results = assert_tampered(forged.seal(tmp_path / "header.jsonl"))
    assert HEADER_FINDING in results[0].out
    assert "ab" * 32 not in said_head(results[0])


def _truncated(forged: Forgery, run: str) -> None:
    """The last block of the run and its rows gone: what is left is a valid chain."""
    last = forged.head(run)["seq"]
    forged.drop(lambda line: not (line["row"].get("run_id") == run and (
        line["row"].get("block") == last
        or (line["table"] == "ledger" and line["row"]["seq"] == last))))


def _twin_dropped(forged: Forgery, run: str) -> None:
    twin = forged.header["runs"][1]
    forged.drop(lambda line: line["row"].get("run_id") != twin)
    forged.header["runs"].remove(twin)


def _twin_row_edited(forged: Forgery, run: str) -> None:
    """A twin's trajectory edited: the run's own chain is untouched, the twin's is not."""
    twin = forged.rows("trajectories", forged.header["runs"][1])[0]
    twin["payload"] = twin["payload"].replace('"outcome":"', '"outcome":"x')


def _twin_unlisted(forged: Forgery, run: str) -> None:
    forged.header["runs"] = [run]


def _header_names_a_twin(forged: Forgery, run: str) -> None:
    forged.header["run_id"] = forged.header["runs"][1]


def _header_names_no_run(forged: Forgery, run: str) -> None:
    forged.header["run_id"] = "0" * 32


def _another_suites_item(forged: Forgery, run: str) -> None:
    item = copy.deepcopy(next(x for x in forged.lines if x["table"] == "items"))
    item["row"]["suite_hash"] = "cd" * 32
    forged.lines.insert(2, item)


def _another_runs_event(forged: Forgery, run: str) -> None:
    event = copy.deepcopy(next(x for x in forged.lines if x["table"] == "run_events"))
    event["row"]["run_id"] = "f" * 32
    forged.lines.append(event)


def _duplicate_event(forged: Forgery, run: str) -> None:
    forged.lines.append(copy.deepcopy(next(x for x in forged.lines if x["table"] == "run_events")))


def _duplicate_block(forged: Forgery, run: str) -> None:
    forged.lines.append(copy.deepcopy(next(x for x in forged.lines if x["table"] == "ledger")))


def _trajectory_dropped(forged: Forgery, run: str) -> None:
    first = forged.rows("trajectories", run)[0]
    forged.drop(lambda line: line["row"] is not first)


def _flag_of_another_type(forged: Forgery, run: str) -> None:
    forged.rows("trajectories", run)[0]["crashed"] = "no"


def _extra_trajectory_rechained(forged: Forgery, run: str) -> None:
    """A trajectory appended as a block of its own, outside the run's slots, re-chained."""
    extra = copy.deepcopy(next(x for x in forged.lines if x["table"] == "trajectories"))
    block = forged.head(run)["seq"] + 1
    extra["row"].update(repetition=2, block=block)
    forged.lines.append(extra)
    ledger = copy.deepcopy(next(x for x in forged.lines if x["table"] == "ledger"))
    ledger["row"].update(seq=block, kind="trajectory", detail='{"rows":{"trajectories":1}}')
    forged.lines.append(ledger)
    forged.rechain(run)


@pytest.mark.parametrize("attack", [
    _truncated, _twin_dropped, _twin_row_edited, _twin_unlisted, _header_names_a_twin,
    _header_names_no_run,
    _another_suites_item, _another_runs_event, _duplicate_event, _duplicate_block,
    _trajectory_dropped, _flag_of_another_type, _extra_trajectory_rechained,
], ids=lambda attack: attack.__name__.strip("_"))
def test_rows_dropped_or_added_and_headers_edited_are_tampered(
    published: Published, tmp_path: Path, attack: Callable[[Forgery, str], None]
) -> None:
    forged = forgery_of(published.bundle)
    attack(forged, published.run)
    assert_tampered(forged.seal(tmp_path / "forged.jsonl"))


# ---- fuzzed: damaged, edited and re-sealed bundles ----------------------------------------
FUZZ_CASES = 20
ODD_VALUES = [None, 0, -1, 2**70, -(2**63) - 1, 1.5, 1e308, "", "x", "\udc80", [], {}, True,
              "0" * 64, {"seq": "1", "digest": 5}, [[[[]]]]]


def figures(report: str) -> str:
    """A text report from its `items:` line on: the numbers, without the verdict above them."""
    return report[report.find("\nitems: "):]


def resealed(lines: list[str], path: Path) -> Path:
    """`lines` (the header first) as a bundle whose file digest matches them."""
    body = "".join(line + "\n" for line in lines).encode("utf-8", "surrogatepass")
    seal = canonical_json({"sha256": hashlib.sha256(body).hexdigest()}) + "\n"
    path.write_bytes(body + seal.encode())
    return path


@st.composite
def damaged(draw: st.DrawFn, honest: list[str]) -> tuple[str, list[str]]:
    """One edit of a bundle's lines (re-sealed after, except a flipped byte)."""
    lines = list(honest)
    at = draw(st.integers(0, len(lines) - 1))
    kind = draw(st.sampled_from(["value", "value", "header value", "drop", "duplicate",
                                 "swap", "junk line", "repeated key", "flipped byte"]))
    if kind in ("value", "header value"):
        at = 0 if kind == "header value" else max(at, 1)
        data = json.loads(lines[at])
        target = data if at == 0 else data["row"]
        target[draw(st.sampled_from(sorted(target)))] = draw(st.sampled_from(ODD_VALUES))
        lines[at] = json.dumps(data, sort_keys=True, separators=(",", ":"))  # as export writes
    elif kind == "drop":
        del lines[at]
    elif kind == "duplicate":
        lines.insert(at, lines[at])
    elif kind == "swap":
        other = draw(st.integers(0, len(lines) - 1))
        lines[at], lines[other] = lines[other], lines[at]
    elif kind == "junk line":
        lines.insert(at, draw(st.sampled_from(["", "[]", "7", '"x"', "{}", "{", "null",
                                               '{"table":"runs","row":[]}'])))
    elif kind == "repeated key":
        lines[at] = lines[at].replace("{", '{"table":"runs",', 1)
    return kind, lines


def test_damaged_bundles_are_the_honest_report_or_tampered_in_one_line(
    published: Published, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    """A bundle edited any way and re-sealed (or not) is reported exactly as the honest one
    (an edit of what no figure rests on, such as when it was exported), with the same
    figures under a withdrawn verdict (a twin's chain cut short voids the certificate
    resting on it; verify names it), TAMPERED, or refused in one line naming the file.
    Never a traceback; never other figures."""
    honest_text = published.bundle.read_text(encoding="utf-8").splitlines()[:-1]
    before = {args: invoke(*args, str(published.bundle)) for args in CHECKED}
    seen: Counter[str] = Counter()
    bad: list[str] = []

    @settings(max_examples=FUZZ_CASES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(edit=damaged(honest_text))
    def case(edit: tuple[str, list[str]]) -> None:
        kind, lines = edit
        path = resealed(lines, tmp_path / "forged.jsonl")
        if kind == "flipped byte":
            data = bytearray(path.read_bytes())
            data[len(data) // 3] ^= 0x20
            path.write_bytes(bytes(data))
        for args, baseline in before.items():
            done = invoke(*args, str(path))
            errors = [line for line in done.err.splitlines() if line.startswith("error: ")]
            if done.traceback is not None:
                verdict = "traceback"
            elif done.code == baseline.code and done.out == baseline.out:
                verdict = "as honest"
            elif done.code in (0, 3) and "\n!!! INADMISSIBLE" in done.out and (
                    figures(done.out) == figures(baseline.out)):
                verdict = "verdict withdrawn, same figures"  # a twin's certificate void
            elif done.code in (0, 3):
                verdict = "silently changed"
            elif done.code in (1, 2) and len(errors) == 1 and str(path) in errors[0]:
                verdict = "refused in one line"
            elif done.code == 2 and not errors and (
                    "TAMPERED" in done.out or (args[0] == "verify" and "FINDING" in done.out)):
                verdict = "TAMPERED"
            else:
                verdict = f"unexplained exit {done.code}"
            seen[verdict] += 1
            if verdict not in ("as honest", "verdict withdrawn, same figures",
                               "refused in one line", "TAMPERED"):
                bad.append(f"{kind} {args[0]}: {verdict}: {done.traceback or done.err[-300:]}")

    case()
    record_property("summary", (
        f"bundle fuzz: {FUZZ_CASES} damaged bundles x {len(CHECKED)} commands: "
        + ", ".join(f"{n} {k}" for k, n in sorted(seen.items()))))
    assert not bad, "\n".join(bad[:3])


CHECKED = (("report",), ("verify", "--skip-rescore"))
