"""Seeded byte flips on a copy of the demo database: each is harmless or reported.

Harmless means `report` and `verify` print exactly what they printed before
the flip. Reported means a TAMPERED banner, a withdrawn verdict, a `verify`
finding, or a one-line error. Never a traceback, and never a report that
changed while still saying ADMISSIBLE; and since both only read, the flipped file's
bytes are the same after them as before. 100 flips in four seeded chunks, so
that test workers can share them; each chunk's counts are printed at the end
of the test run (a `summary` property, shown by tests/conftest.py).
"""

from __future__ import annotations

import random
import sqlite3
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.invoke import Invocation, invoke

CHUNKS = 4
FLIPS_PER_CHUNK = 25
SEED = 20261201
ACCEPTED = {
    "harmless",
    "reported by verify",
    "reported TAMPERED",
    "one-line error",
    "verdict withdrawn",
}


def is_admissible(result: Invocation) -> bool:
    return result.code == 0 and "\nADMISSIBLE -- " in result.out and "TAMPERED" not in result.out


def one_line_error(result: Invocation) -> bool:
    lines = result.err.strip().splitlines()
    return result.code != 0 and len(lines) == 1 and lines[0].startswith("error: ")


def verdict_on_verify(verify: Invocation, before: Invocation) -> str:
    if verify.traceback is not None:
        return "traceback"
    if verify.code == 0:
        return "harmless" if verify.out == before.out else "verify silently changed"
    if "verification stopped on a value no check anticipated" in verify.out:
        return "verify hit an unanticipated value"
    if "FINDING " in verify.out or one_line_error(verify):
        return "reported by verify"
    return "verify failed without saying why"


def verdict_on_report(report: Invocation) -> str:
    if report.traceback is not None:
        return "traceback"
    if is_admissible(report):
        return "silently changed ADMISSIBLE report"
    if report.out.startswith("!!! TAMPERED"):
        return "reported TAMPERED"
    if one_line_error(report):
        return "one-line error"
    if report.code == 0 and "INADMISSIBLE" in report.out:
        return "verdict withdrawn"
    return "report failed without saying why"


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_byte_flips_are_harmless_or_reported(
    demo_db: tuple[Path, str],
    tmp_path: Path,
    record_property: Callable[[str, object], None],
    chunk: int,
) -> None:
    source, run_id = demo_db
    original = source.read_bytes()
    db = tmp_path / "flipped.db"

    tracebacks = 0

    def counted(done: Invocation) -> Invocation:
        nonlocal tracebacks
        tracebacks += done.traceback is not None
        return done

    def report() -> Invocation:
        return counted(invoke("report", run_id, "--db", str(db)))

    def verify(*extra: str) -> Invocation:
        return counted(invoke("verify", run_id, *extra, "--db", str(db)))

    db.write_bytes(original)
    before = {"report": report(), "verify": verify(), "chain": verify("--skip-rescore")}
    assert is_admissible(before["report"]) and before["verify"].code == 0
    rng = random.Random(f"{SEED}/{chunk}")
    outcomes: Counter[str] = Counter()
    bad: list[str] = []
    changed = 0
    for _ in range(FLIPS_PER_CHUNK):
        offset = rng.randrange(len(original))
        flipped = bytearray(original)
        flipped[offset] ^= rng.randrange(1, 256)
        for suffix in ("-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        db.write_bytes(bytes(flipped))
        shown = report()
        if shown.traceback is None and shown.code == 0 and shown.out == before["report"].out:
            # the report did not change: verify must say nothing changed, or say what did;
            # the chain check first, and the full re-derivation only when it is clean
            verdict = verdict_on_verify(verify("--skip-rescore"), before["chain"])
            if verdict == "harmless":
                verdict = verdict_on_verify(verify(), before["verify"])
        else:
            verdict = verdict_on_report(shown)
        outcomes[verdict] += 1
        if verdict not in ACCEPTED:
            bad.append(f"offset {offset}: {verdict}: {shown.traceback or shown.out[:300]}")
        if db.read_bytes() != flipped:  # report and verify only read: not one byte may change
            changed += 1
            bad.append(f"offset {offset}: report or verify changed the store")
    record_property(
        "summary",
        f"byte flips, chunk {chunk + 1} of {CHUNKS} ({FLIPS_PER_CHUNK} flips on the "
        f"{len(original)}-byte demo database): "
        + ", ".join(f"{n} {k}" for k, n in sorted(outcomes.items()))
        + f"; {tracebacks} tracebacks, "
        + ("store unchanged" if not changed else f"store changed {changed} times"),
    )
    assert not bad, "\n".join(bad)
    assert sum(outcomes.values()) == FLIPS_PER_CHUNK
    assert tracebacks == 0 and changed == 0


STRUCTURE_FLIPS = 24


def structure_offsets(data: bytes, rng: random.Random) -> list[int]:
    """Offsets in what holds an SQLite file together rather than in a row: the database
    header, and each page's b-tree header and first cell pointers."""
    page = int.from_bytes(data[16:18], "big")
    headers = [o for start in range(0, len(data), page)
               for o in range(start + (100 if start == 0 else 0), start + 16 + (start == 0) * 100)]
    return sorted(rng.sample([*range(100), *headers], STRUCTURE_FLIPS))


def quick_check_passes(db: Path) -> bool:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True) as conn:
            conn.text_factory = bytes
            return bool(conn.execute("PRAGMA quick_check(1)").fetchall() == [(b"ok",)])
    except sqlite3.DatabaseError:
        return False


def test_flips_in_the_files_structure_keep_the_report_or_refuse_it(
    tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    """Seeded flips in the database header and the pages' b-tree headers of a small store
    (the flips above land mostly in rows): `report` prints exactly what it printed before,
    only when SQLite's quick_check finds the file sound, or refuses the store in one line
    (damaged, unreadable) or says TAMPERED; never other figures, never a traceback, and the
    file is left as it was. Where the report is unchanged, verify is clean or names what
    changed."""
    from agent_assay.store import open_store
    from tests.support.toy import ToyAdapter
    from tests.support.toyrun import toy_run

    source = tmp_path / "source.db"
    store = open_store(str(source))
    run_id = toy_run(store, ToyAdapter(), "good", repeats=2).run_id
    store.close()
    original = source.read_bytes()
    db = tmp_path / "flipped.db"
    before = invoke("report", run_id, "--db", str(source))
    assert before.traceback is None and before.out, before.err
    rng = random.Random(SEED)
    outcomes: Counter[str] = Counter()
    bad: list[str] = []
    for offset in structure_offsets(original, rng):
        flipped = bytearray(original)
        flipped[offset] ^= rng.randrange(1, 256)
        db.write_bytes(bytes(flipped))
        shown = invoke("report", run_id, "--db", str(db))
        if shown.traceback is not None:
            verdict = "traceback"
        elif shown.code == before.code:
            verdict = "harmless" if shown.out == before.out else "silently changed report"
            if verdict == "harmless" and not quick_check_passes(db):
                verdict = "figures printed from a file SQLite calls damaged"
            if verdict == "harmless":
                checked = invoke("verify", run_id, "--skip-rescore", "--db", str(db))
                if checked.traceback is not None or checked.code not in (0, 2):
                    verdict = "verify failed without saying why"
                elif checked.code == 2:
                    verdict = "reported by verify"
        elif shown.out.startswith("!!! TAMPERED"):
            verdict = "reported TAMPERED"
        else:
            verdict = "one-line error" if one_line_error(shown) else "failed without saying why"
        outcomes[verdict] += 1
        if verdict not in ACCEPTED:
            bad.append(f"offset {offset}: {verdict}: {shown.traceback or shown.out[:300]}")
        if db.read_bytes() != flipped:
            bad.append(f"offset {offset}: report or verify changed the store")
    record_property("summary", (
        f"byte flips in structure ({STRUCTURE_FLIPS} on the {len(original)}-byte toy store's "
        "header and b-tree headers): "
        + ", ".join(f"{n} {k}" for k, n in sorted(outcomes.items()))))
    assert not bad, "\n".join(bad)
