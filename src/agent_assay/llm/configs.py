"""Model configs as data: every parameter that can change what a model does is in them.

Systems list their model configs with `model_params`; the harness's model agent turns a
config back into loop settings with `loop_settings`, so the same knobs mean the same
thing on every system and the config hash moves whenever one of them does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from agent_assay.adapters.system import ModelPrompt
from agent_assay.hashing import stable_seed
from agent_assay.llm.settings import LoopSettings

MODEL_SETTINGS: dict[str, type] = {
    "model": str,
    "temperature": float,
    "seed": int,
    "max_turns": int,
    "max_tokens": int,
    "tool_choice": str,
    "max_string_length": int,
}
"""What `-M key=value` may set on any model config, whatever the system (see
`adapters.settings`): the knobs `loop_settings` reads, and the model's name. The prompt's
hash and the terminal tools are the system's, not a setting."""
REQUEST_TIMEOUT_S = 120.0
REQUEST_ATTEMPTS = 3
RETRY_BACKOFF_S = 0.5


def model_params(
    model: str, temperature: float, *, prompt: ModelPrompt, terminal_tools: Iterable[str]
) -> dict[str, Any]:
    """The parameters of one model config.

    Tool results go back as a user message: llama-cpp-python's chatml-function-calling
    template (the local server's) renders a ``tool`` message as an empty turn, so a model
    behind it would never see a result. Free strings are capped at 64 characters in the
    schemas sent: that server constrains arguments with a grammar and ignores max_tokens
    for them, so an unclosed string would otherwise run to the end of the context window.
    Seed is recorded and sent; that server ignores it when tools are offered. The system's
    `prompt` is hashed in, so a changed instruction is a changed config."""
    return {
        "agent": "model",
        "model": model,
        "temperature": temperature,
        "seed": 0,
        "max_turns": 6,
        "max_tokens": 256,
        "tool_choice": "auto",
        "tool_result_role": "user",
        "terminal_tools": list(terminal_tools),
        "max_string_length": 64,
        "prompt_sha256": prompt_sha256(prompt.instructions, prompt.request),
    }


def is_model_config(params: Mapping[str, Any]) -> bool:
    """A config the harness's model agent runs (built by `model_params`)."""
    return params.get("agent") == "model"


def prompt_sha256(instructions: str, request: str) -> str:
    """The hash a model config records of the prompt it was made for."""
    return hashlib.sha256((instructions + request).encode("utf-8")).hexdigest()


def loop_settings(params: Mapping[str, Any], seed: int) -> LoopSettings:
    """The loop's settings from a model config; the item seed is folded into the sent seed."""
    return LoopSettings(
        temperature=float(params["temperature"]),
        max_turns=int(params["max_turns"]),
        seed=stable_seed(params["seed"], seed) % 2**31,
        tool_choice=str(params["tool_choice"]),
        max_tokens=int(params["max_tokens"]),
        timeout_s=REQUEST_TIMEOUT_S,
        max_attempts=REQUEST_ATTEMPTS,
        backoff_s=RETRY_BACKOFF_S,
        terminal_tools=frozenset(params["terminal_tools"]),
        tool_result_role="user" if params["tool_result_role"] == "user" else "tool",
        max_string_length=int(params["max_string_length"]),
    )
