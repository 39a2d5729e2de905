"""How the harness and an agent process talk: length-prefixed frames over two pipes.

The harness sends pickles (it is the trusted side, and a job holds dataclasses); the
agent process answers in JSON only. An agent's author controls everything that runs in
its process, including this module's code there, so what comes back must be data the
harness parses and checks, never something whose loading could run code in the writer.
"""

from __future__ import annotations

import json
import os
from collections import deque
from collections.abc import Iterator
from typing import Any

HEADER = 8
"""Bytes of the big-endian length before each frame."""
MOST = 1 << 30
"""The largest frame either side accepts (a length beyond it is a broken stream)."""


def frame(payload: bytes) -> bytes:
    return len(payload).to_bytes(HEADER, "big") + payload


def write_all(fd: int, data: bytes) -> None:
    """Write every byte to `fd` (a pipe may take fewer than asked at a time)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def encode(message: dict[str, Any]) -> bytes:
    """An agent process's answer as one frame (it raises on a value JSON cannot carry)."""
    return frame(json.dumps(message, allow_nan=True).encode("utf-8"))


class BrokenStream(Exception):
    """The other side wrote something that is not a frame."""


class FrameReader:
    """Frames out of a byte stream read in chunks: bytes go in, whole frames come out."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def feed(self, data: bytes) -> Iterator[bytes]:
        self.buffer += data
        while len(self.buffer) >= HEADER:
            size = int.from_bytes(self.buffer[:HEADER], "big")
            if size > MOST:
                raise BrokenStream(f"a frame of {size} bytes")
            if len(self.buffer) < HEADER + size:
                return
            payload = bytes(self.buffer[HEADER:HEADER + size])
            del self.buffer[:HEADER + size]
            yield payload



class FrameSource:
    """Whole frames from a blocking file descriptor, one at a time, in order."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.reader = FrameReader()
        self.pending: deque[bytes] = deque()

    def next(self) -> bytes | None:
        """The next frame; None at the end of the stream."""
        while not self.pending:
            data = os.read(self.fd, 1 << 16)
            if not data:
                return None
            self.pending.extend(self.reader.feed(data))
        return self.pending.popleft()
