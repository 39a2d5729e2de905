"""Reading an Inspect log through Inspect's own public reader, with one-line refusals.

`read_eval_log(header_only=True)` gives the eval spec; the samples come from Inspect's
sample readers (events left out: they are the log's transcript, which this importer does
not store), an .eval log's in batches so a large log is never held whole by Inspect.
Whatever Inspect raises on a damaged file (a bad zip, bad JSON, a sample that fails its
schema) becomes one AssayError naming the file and, once samples are read, the sample.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from agent_assay.errors import AssayError

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample

SUFFIXES = (".eval", ".json")
LEFT_OUT = frozenset({"events", "events_data", "timelines"})
"""Sample fields not read: the transcript of events, which nothing here stores."""
BATCH = 500
"""Samples of an .eval log read at once."""


def one_line(exc: BaseException) -> str:
    """An exception as one short line: pydantic's multi-line reports folded."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text[:200]}"


def schema_fault(exc: BaseException) -> tuple[int | None, str] | None:
    """A schema failure (pydantic's) as the sample it is in, if any, and one line naming
    the field; None for any other failure."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return None
    try:
        first = errors()[0]
    except Exception:
        return None
    loc = tuple(first.get("loc") or ())
    index = loc[1] if len(loc) > 1 and loc[0] == "samples" and isinstance(loc[1], int) else None
    field = loc[2:] if index is not None else loc
    dotted = ".".join(str(p) for p in field) or "the value"
    return index, f"field '{dotted}': {first.get('msg', 'invalid')}"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def log_files(path: Path) -> list[Path]:
    """`path` itself, or the logs in a directory (by name); refused when there are none."""
    if path.is_dir():
        found = sorted(p for p in path.iterdir() if p.suffix in SUFFIXES and p.is_file())
        if not found:
            raise AssayError(f"{path}: no Inspect log (*.eval, *.json) in this directory")
        return found
    if not path.is_file():
        raise AssayError(f"{path}: no such file or directory")
    if path.suffix not in SUFFIXES:
        raise AssayError(f"{path}: not an Inspect log: expected a .eval or .json file")
    return [path]


def header(path: Path) -> EvalLog:
    """The log's eval spec, results and stats, without its samples."""
    from inspect_ai.log import read_eval_log

    try:
        return read_eval_log(str(path), header_only=True)
    except Exception as exc:  # Inspect's reader raises whatever the damage causes
        fault = schema_fault(exc)
        why = one_line(exc) if fault is None else fault[1]
        raise AssayError(f"{path}: not a readable Inspect log: {why}") from exc


def samples(path: Path) -> Iterator[EvalSample]:
    """Every sample; a damaged one refused with its position. A .json log is one JSON
    document and is read whole; an .eval log is read in batches of `BATCH` through
    Inspect's concurrent reader (one event loop per batch, not per sample: ten times
    faster), so memory holds one batch of Inspect's samples at a time."""
    if path.suffix == ".json":
        yield from _whole(path)
        return
    from inspect_ai.log import read_eval_log_sample_summaries

    try:
        keys = [(s.id, s.epoch) for s in read_eval_log_sample_summaries(str(path))]
    except Exception as exc:
        raise AssayError(f"{path}: the sample index: {_where(exc, 0, 'none')}") from exc
    for start in range(0, len(keys), BATCH):
        yield from _batch(path, keys[start:start + BATCH], start)


def _whole(path: Path) -> list[EvalSample]:
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(path), resolve_attachments=True, exclude_fields=set(LEFT_OUT))
    except Exception as exc:
        raise AssayError(f"{path}: {_where(exc, 0, 'none before it')}") from exc
    return list(log.samples or [])


def _batch(path: Path, keys: list[tuple[int | str, int]], first: int) -> list[EvalSample]:
    from inspect_ai.log import read_eval_log_samples_by_id

    def read(wanted: list[tuple[int | str, int]]) -> list[EvalSample]:
        return read_eval_log_samples_by_id(str(path), wanted, resolve_attachments=True,
                                           exclude_fields=set(LEFT_OUT))

    try:
        return read(keys)
    except Exception:
        pass  # read them one at a time, to name the one that fails
    for n, key in enumerate(keys):
        try:
            read([key])
        except Exception as exc:
            raise AssayError(f"{path}: sample [{first + n}] (id {key[0]!r} epoch {key[1]}): "
                             f"{_fault_line(exc)}") from exc
    raise AssayError(f"{path}: samples [{first}] to [{first + len(keys) - 1}] cannot be read "
                     "together, though each can alone")


def _fault_line(exc: BaseException) -> str:
    fault = schema_fault(exc)
    return one_line(exc) if fault is None else fault[1]


def _where(exc: BaseException, index: int, last: str) -> str:
    """Which sample failed, and how: a .json log is validated whole, so its failing
    sample is the one pydantic names."""
    fault = schema_fault(exc)
    if fault is not None and fault[0] is not None:
        return f"sample [{fault[0]}]: {fault[1]}"
    return f"sample [{index}] (the one after {last}): {_fault_line(exc)}"
