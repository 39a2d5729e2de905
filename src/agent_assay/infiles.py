"""Files the harness reads for a user: regular files only, up to a stated size, or one line.

A path can name what is not a file. A FIFO waits for a writer that may never come; an
endless device (/dev/zero, /dev/urandom) read whole fills memory until the process is
killed; a directory or a socket has no content to read. So every file a command reads
for its user (bands, mutant sets, golden scripts and suite files, verifiers sources,
tau-bench results, evidence bundles, witnesses) is opened here: refused unless it is a
regular file (looked at before it is opened, so a device is never opened, and again on
the open descriptor, opened without waiting, so a FIFO swapped in between cannot block),
and refused once it holds more than its limit (checked on its size, and again as it is
read, for a file that grows). JSON read for a user refuses a key given twice, which
Python's decoder would settle silently by keeping the last.
"""

from __future__ import annotations

import io
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from agent_assay.errors import AssayError

MIB = 1 << 20
TEXT_LIMIT = 16 * MIB
"""Files a person writes (YAML, TOML): the largest shipped is a few kilobytes, and YAML's
parser takes seconds a megabyte, so anything near this is a mistake, not a config."""
DATA_LIMIT = 1024 * MIB
"""Files a program writes (evidence bundles, tau-bench results, witnesses): a bundle is
read whole into memory, several times its size once parsed."""
_CHUNK = MIB
_SURROGATE = re.compile("[\ud800-\udfff]")


def open_input(path: Path, what: str, limit: int) -> BinaryIO:
    """`path` opened for reading, refused in one line when it is missing, not a regular
    file or larger than `limit` bytes; reading past `limit` (a file that grew) is refused
    too."""
    _regular(path, what, _stat(path, what, os.stat))
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise _unreadable(path, what, exc) from exc
    try:
        size = _regular(path, what, os.fstat(fd))
        if size > limit:
            raise _too_large(path, what, limit)
        os.set_blocking(fd, True)
        return io.BufferedReader(_Capped(fd, limit, lambda: _too_large(path, what, limit)))
    except BaseException:
        os.close(fd)
        raise


def read_input(path: Path, what: str, limit: int = TEXT_LIMIT) -> bytes:
    """The whole of `path` (see `open_input`)."""
    with open_input(path, what, limit) as stream:
        return stream.read()


def read_utf8(path: Path, what: str, limit: int = TEXT_LIMIT) -> str:
    """The whole of `path` as text; bytes that are not UTF-8 are refused at their line."""
    raw = read_input(path, what, limit)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise AssayError(
            f"{path}:{line}: {what} is not UTF-8 text "
            f"(byte 0x{raw[exc.start]:02x} at offset {exc.start})"
        ) from exc


def _too_large(path: Path, what: str, limit: int) -> AssayError:
    return AssayError(f"{path}: {what} is larger than the {limit // MIB} MiB this "
                      "agent-assay reads for one")


def lone_surrogate(text: str) -> str | None:
    """The first lone surrogate in `text` (an escape such as \\udc80 in YAML or JSON makes
    one; no UTF-8 text and no store can hold it), or None."""
    found = _SURROGATE.search(text) if not text.isascii() else None
    return found.group() if found else None


class RepeatedKey(ValueError):
    """A JSON object that gives one key twice (`unique_keys`)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"the key {key!r} is given twice in one object")
        self.key = key


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """`object_pairs_hook` for JSON read for a user: a key given twice is refused."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise RepeatedKey(key)
        found[key] = value
    return found


def _stat(path: Path, what: str, call: Callable[[Path], os.stat_result]) -> os.stat_result:
    try:
        return call(path)
    except OSError as exc:
        raise _unreadable(path, what, exc) from exc


def _regular(path: Path, what: str, found: os.stat_result) -> int:
    """The size of a regular file; anything else is refused, saying what it is."""
    mode = found.st_mode
    if stat.S_ISREG(mode):
        return found.st_size
    if stat.S_ISDIR(mode):
        raise AssayError(f"{path}: {what} is a directory, not a file")
    kind = ("a FIFO, which could wait forever" if stat.S_ISFIFO(mode)
            else "a device, which could never end" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a file")
    raise AssayError(f"{path}: {what} is not a regular file ({kind}); it was not read")


def _unreadable(path: Path, what: str, exc: OSError) -> AssayError:
    if isinstance(exc, FileNotFoundError):
        return AssayError(f"{path}: {what} not found")
    return AssayError(f"{path}: {what} cannot be read ({exc.strerror or exc})")


class _Capped(io.RawIOBase):
    """A descriptor's bytes, refused once more than `limit` of them were read."""

    def __init__(self, fd: int, limit: int, refuse: Callable[[], AssayError]) -> None:
        self._fd, self._left, self._refuse = fd, limit, refuse

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        got = os.readv(self._fd, [buffer])
        self._left -= got
        if self._left < 0:
            raise self._refuse()
        return got

    def readall(self) -> bytes:
        parts = []
        while chunk := os.read(self._fd, _CHUNK):
            self._left -= len(chunk)
            if self._left < 0:
                raise self._refuse()
            parts.append(chunk)
        return b"".join(parts)

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)
        super().close()
