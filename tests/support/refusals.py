"""The shape every refusal of a user's file must have, checked in one place."""

from __future__ import annotations

from pathlib import Path


def one_line(path: Path, line: int | None, said: str, message: str) -> None:
    """`said` is one line, starts with `path:line: ` (`path: ` without a line), holds
    `message`."""
    assert "\n" not in said
    assert said.startswith(f"{path}:{line}: " if line else f"{path}: "), said
    assert message in said, said
