"""Which model family a model name belongs to, for judge_calibration's cross-family rule.

A judge of the agent's own family shares its blind spots and its taste for its own
phrasing, and no calibration on someone else's answers measures that. The family is read
from the name with a fixed table, never taken from the system's word: every token of the
name (split on anything not a letter or a digit) is matched against the table's prefixes,
so "openai/gpt-4o-mini", "ft:gpt-4o:org" and "my-gpt4-judge" are all openai. A name the
table does not know is its own first alphabetic token ("acme-7b" is "acme").
"""

from __future__ import annotations

import re

FAMILIES: tuple[tuple[str, str], ...] = (
    ("gpt", "openai"), ("chatgpt", "openai"), ("o1", "openai"), ("o3", "openai"),
    ("o4", "openai"), ("davinci", "openai"),
    ("claude", "anthropic"),
    ("gemini", "google"), ("gemma", "google"), ("palm", "google"),
    ("llama", "meta"),
    ("qwen", "alibaba"), ("qwq", "alibaba"),
    ("mistral", "mistral"), ("mixtral", "mistral"), ("ministral", "mistral"),
    ("codestral", "mistral"),
    ("smollm", "huggingface"),
    ("phi", "microsoft"),
    ("deepseek", "deepseek"),
    ("command", "cohere"),
    ("grok", "xai"),
)
"""Name prefix -> family, for the families a bundled run or a common endpoint serves."""


def model_family(name: str) -> str:
    tokens = [t for t in re.split(r"[^a-z0-9]+", name.lower()) if t]
    for token in tokens:
        for prefix, family in FAMILIES:
            if token.startswith(prefix):
                return family
    letters = [m.group(0) for t in tokens if (m := re.match(r"[a-z]+", t))]
    return letters[0] if letters else name.lower()


def same_family(agent_model: str | None, judge_model: str) -> bool:
    """True when the agent is a model and the judge is of its family."""
    return agent_model is not None and model_family(agent_model) == model_family(judge_model)
