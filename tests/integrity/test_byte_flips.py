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
