"""Files the harness writes for a reader (pages, bundles, run-id files): whole or not at all.

A page cut short by a full disk looks like a page, and a reader who opens it trusts what
it shows. So every such file is written to a temporary file beside its target, flushed
to the disk, and renamed over the target only when all of it was written; a failure
removes the temporary and says, in one line, which file and why (a full disk named as
one). A target that is not a regular file (a device, a FIFO, a symlink, a directory) is
never replaced.
"""

from __future__ import annotations

import errno
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from agent_assay.errors import AssayError


def reason(exc: OSError) -> str:
    """Why a write failed, in words a reader acts on."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full (no space left on device)"
    return exc.strerror or str(exc)


def refuse_special(path: Path, what: str, *, special: bool = False,
                   outcome: str = "it is not replaced") -> None:
    """A target that exists and is not a regular file (or that the caller found `special`
    on its descriptor) is not ours to replace or append to."""
    if special or path.is_symlink() or (path.exists() and not path.is_file()):
        raise AssayError(f"{what} {path} is not a regular file (a device, FIFO, symlink or "
                         f"directory): {outcome}")


@contextmanager
def whole_file(path: Path, what: str) -> Iterator[BinaryIO]:
    """Bytes written in the block land in `path` only if the block ends without an error."""
    refuse_special(path, what)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.partial")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise AssayError(f"{what} {path} could not be written: {reason(exc)}") from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_whole(path: Path, data: bytes, what: str) -> None:
    with whole_file(path, what) as out:
        out.write(data)
