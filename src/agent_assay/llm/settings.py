"""How the model loop behaves: every knob a model config can set, with no client import.

Kept apart from the loop itself so that building configs and recording a run's
environment never import the OpenAI client (an optional dependency).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class LoopSettings:
    temperature: float
    max_turns: int
    seed: int | None = None
    tool_choice: str = "auto"
    max_tokens: int | None = 256
    timeout_s: float = 60.0
    max_attempts: int = 3
    backoff_s: float = 0.5
    terminal_tools: frozenset[str] = frozenset()
    describe_tools: bool = True
    max_string_length: int | None = None
    """When set, every free string parameter (no maxLength, enum or pattern) is sent with
    this maxLength: a grammar-constrained server otherwise lets an unclosed string run to
    the end of the context window."""
    tool_result_role: Literal["tool", "user"] = "tool"
    """How results go back: standard ``tool`` messages, or one ``user`` message per turn
    for servers whose chat template drops tool messages (llama-cpp-python's
    chatml-function-calling renders a tool message as an empty turn)."""
