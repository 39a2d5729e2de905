"""A witness: the heads a store published, kept in a file outside it.

Whoever can write the store can rewrite a run's chain from any block on and keep it
consistent, or delete the blocks a later certification appended (a FAILED one, say) so
the earlier ADMISSIBLE verdict stands again: every check made from the store alone then
passes. A witness is an append-only JSON Lines file outside the store, one line per
certification (`controls run --witness`) or export (`export --witness`): the run, its
head, the verdict then, the time, the harness version, and the SHA-256 of the line before
(the first line names GENESIS), so rewriting, removing or reordering a line breaks the
next line's link. `verify --witness` then asks of every line whose run the store (or a
bundle) holds: does the run's chain still hold that block, with that digest?

Lines are only appended: each is written whole with one `os.write` on an O_APPEND
descriptor, under an exclusive lock, then fsynced. A file holds its own history only as
well as the place it is kept: the last line, or the file as a whole, can be rewritten by
whoever can write the file. Committing it to git (or publishing it elsewhere the store's
writer cannot rewrite) is what makes it a witness.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agent_assay.errors import AssayError
from agent_assay.findings import Finding
from agent_assay.hashing import canonical_json
from agent_assay.infiles import DATA_LIMIT, read_input
from agent_assay.outfiles import refuse_special
from agent_assay.store.encoding import chain
from agent_assay.store.encoding.text import now
from agent_assay.store.evidence.raw import RawReader
from agent_assay.store.facade.store import Store
from agent_assay.store.records import Head
from agent_assay.version import harness_version

FORMAT = "agent-assay-witness/1"
GENESIS = "0" * 64
_NOTHING = "nothing was appended"
_KEYS = frozenset({"witness", "run_id", "head", "verdict", "event", "at", "harness_version",
                   "prev"})


@dataclass(frozen=True)
class Witnessed:
    """One line: `run_id` had `head` when it was certified or exported (`event`)."""

    line: int
    run_id: str
    head: Head
    verdict: str
    event: str
    at: str


@dataclass(frozen=True)
class Witness:
    """A witness file as read: its lines, where its own chain is broken, and the digest
    the next line must name."""

    path: Path
    entries: tuple[Witnessed, ...]
    findings: tuple[Finding, ...]
    last: str


def read_witness(path: Path) -> Witness:
    """Read and check `path`'s own chain. A file whose first line is not a witness line
    is refused (one line); a later line that is broken, rewritten or out of place is a
    finding naming its line number."""
    data = read_input(path, "witness", DATA_LIMIT)
    entries: list[Witnessed] = []
    findings: list[Finding] = []
    prev = GENESIS
    for number, raw in enumerate(data.splitlines(keepends=True), start=1):
        problem, entry = _parse(raw, number)
        if entry is None and number == 1:
            raise AssayError(f"{path} is not an agent-assay witness (line 1: {problem})")
        if entry is None:
            findings.append(Finding(f"witness {path} line {number}", problem))
        elif entry[1] != prev:
            findings.append(Finding(f"witness {path} line {number}", (
                "does not follow the line before it: a line up to here was rewritten, "
                "removed or moved")))
        if entry is not None:
            entries.append(entry[0])
        prev = hashlib.sha256(raw).hexdigest()
    return Witness(path, tuple(entries), tuple(findings), prev)


def _parse(raw: bytes, number: int) -> tuple[str, tuple[Witnessed, str] | None]:
    """(why not, None) or ("", (the line, the digest it names as the one before))."""
    if not raw.endswith(b"\n"):
        return "not a whole line (no newline at its end)", None
    try:
        data = json.loads(raw)
    except ValueError:
        return "not JSON", None
    if not isinstance(data, dict) or set(data) != _KEYS or data["witness"] != FORMAT:
        return f"not a {FORMAT} line", None
    if raw != (canonical_json(data) + "\n").encode("utf-8"):
        return "not written as the harness writes a line (canonical JSON)", None
    head = data["head"]
    try:
        entry = Witnessed(number, str(data["run_id"]), Head(int(head["seq"]), str(head["digest"])),
                          str(data["verdict"]), str(data["event"]), str(data["at"]))
    except (KeyError, TypeError, ValueError):
        return "its head is not {seq, digest}", None
    if not chain.is_digest(entry.head.digest) or not chain.is_digest(data["prev"]):
        return "a digest in it is not a SHA-256", None
    return "", (entry, str(data["prev"]))


def writable_witness(path: Path) -> Witness | None:
    """`path` as a witness a line may be appended to: None when it does not exist yet;
    refused, before anything is written, when it is not a witness or its chain is broken,
    and when it is not a regular file (a FIFO would block the append, a device swallow it,
    a symlink put it somewhere else)."""
    refuse_special(path, "witness", outcome=_NOTHING)
    if not path.exists():
        return None
    found = read_witness(path)
    if found.findings:
        raise AssayError(f"witness {path} is broken, nothing was appended: "
                         f"{found.findings[0].line()}")
    return found


def append_head(path: Path, run_id: str, head: Head, verdict: str, event: str) -> int:
    """Append one line for `run_id`'s `head` and return its line number. The file is
    checked under the lock, so two writers never name the same line as the one before."""
    refuse_special(path, "witness", outcome=_NOTHING)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, 0o644)  # what replaced the file since neither waits nor follows
    except OSError as exc:
        raise AssayError(f"cannot write witness {path}: {exc.strerror or exc}") from exc
    try:
        refuse_special(path, "witness", special=not stat.S_ISREG(os.fstat(fd).st_mode),
                       outcome=_NOTHING)
        fcntl.flock(fd, fcntl.LOCK_EX)
        found = writable_witness(path) if os.fstat(fd).st_size else None
        line = canonical_json({
            "witness": FORMAT, "run_id": run_id, "head": head.to_json(), "verdict": verdict,
            "event": event, "at": now(), "harness_version": harness_version(),
            "prev": found.last if found else GENESIS,
        }) + "\n"
        _write_whole(fd, path, line.encode("utf-8"))
        if not found:
            _sync_directory(path.parent)
        return (len(found.entries) if found else 0) + 1
    finally:
        os.close(fd)


def _write_whole(fd: int, path: Path, data: bytes) -> None:
    """One write of the whole line, then fsync; a short write is undone (the file ends
    where it ended), so no line is ever half there."""
    size = os.fstat(fd).st_size
    try:
        written = os.write(fd, data)
        if written != len(data):
            raise OSError(f"wrote {written} of {len(data)} bytes")
        os.fsync(fd)
    except OSError as exc:
        os.ftruncate(fd, size)
        raise AssayError(f"cannot write witness {path}: {getattr(exc, 'strerror', None) or exc}"
                         ) from exc


def _sync_directory(directory: Path) -> None:
    """A new file's name is durable once its directory is synced."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass
class WitnessCheck:
    """`verify --witness`: what the witness holds against what the store holds."""

    path: Path
    lines: int = 0
    """Witness lines whose run the store holds (each checked against its chain)."""
    runs: int = 0
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def check_witness(store: Store, path: Path) -> WitnessCheck:
    """The witness's own chain, then every witnessed head of a run the store holds: the
    run's chain must still hold that block, with that digest."""
    witness = read_witness(path)
    out = WitnessCheck(path, findings=list(witness.findings))
    held = set(store.run_ids())
    chains: dict[str, Mapping[int, str]] = {}
    absent: dict[str, int] = {}
    for entry in witness.entries:
        if entry.run_id not in held:
            absent[entry.run_id] = absent.get(entry.run_id, 0) + 1
            continue
        if entry.run_id not in chains:
            chains[entry.run_id] = {b.seq: b.digest for b in RawReader(store).ledger(entry.run_id)}
        out.lines += 1
        problem = _missing(chains[entry.run_id], entry)
        if problem:
            out.findings.append(Finding(f"run {entry.run_id}", problem))
    out.runs = len(chains)
    if absent:
        out.notes.append(
            f"witness {path}: {sum(absent.values())} line(s) name {len(absent)} run(s) not held "
            f"here, not checked: {', '.join(sorted(absent)[:5])}"
            + (" ..." if len(absent) > 5 else ""))
    return out


def _missing(digests: Mapping[int, str], entry: Witnessed) -> str:
    held = f"witness line {entry.line} holds block {entry.head.seq} {entry.head.digest} " \
           f"({entry.event}, {entry.verdict}, {entry.at})"
    found = digests.get(entry.head.seq)
    if found == entry.head.digest:
        return ""
    if found is None:
        end = max(digests, default=0)
        return (f"its chain ends at block {end}, but {held}: the chain was truncated, a later "
                "certification deleted, or this copy predates it")
    return f"its block {entry.head.seq} is {found}, but {held}: the chain was rewritten"

