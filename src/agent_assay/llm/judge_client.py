"""The harness's judge backend: one chat completion on an OpenAI-compatible endpoint.

A judge is asked one yes/no question per request, at temperature 0, with a reply capped
at a few tokens: the verdict is parsed from the reply's first word (`scoring.judging`), so
anything longer is only more to misread. The request goes over plain HTTP (urllib) rather
than the OpenAI client, which only `llm.loop` imports; the endpoint is resolved the way
every model config's is (`llm.endpoint`: the key from the environment only, never stored).
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any

from agent_assay.errors import AgentUnreachable
from agent_assay.llm.endpoint import Endpoint, resolve_endpoint
from agent_assay.scoring.judging import JudgeAsk, JudgeModel

MAX_REPLY_TOKENS = 4
TIMEOUT_S = 120.0
ATTEMPTS = 3


class OpenAIJudge:
    """The harness's own judge backend: `model`'s reply to each prompt, as sent. A backend
    of any other type is the system's own code, which judge_calibration accepts only under
    the certifier's waiver (a system that writes its judge can answer the labelled pairs
    from their labels)."""

    def __init__(self, model: JudgeModel, environ: dict[str, str] | None = None) -> None:
        self.model = model
        self.endpoint = resolve_endpoint(
            {"model": model.model, **({"base_url": model.base_url} if model.base_url else {})},
            environ,
        )

    def __call__(self, prompt: str) -> str:
        return reply_text(post(self.endpoint, request_body(self.endpoint.model, prompt)))


def openai_judge(model: JudgeModel, environ: dict[str, str] | None = None) -> JudgeAsk:
    """A `JudgeAsk` that sends each prompt to `model` and returns the raw reply text."""
    return OpenAIJudge(model, environ)


def request_body(model: str, prompt: str) -> dict[str, Any]:
    return {
        "model": model,
        "messages": [{"role": "user", "content": prompt}],
        "temperature": 0.0,
        "max_tokens": MAX_REPLY_TOKENS,
        "seed": 0,
    }


def post(endpoint: Endpoint, body: dict[str, Any]) -> dict[str, Any]:
    """POST /chat/completions, retried on connection errors and 5xx a bounded number of
    times; then the judge is unreachable, which the scorer reports as a crash."""
    data = json.dumps(body).encode("utf-8")
    last = ""
    for attempt in range(ATTEMPTS):
        request = urllib.request.Request(
            f"{endpoint.base_url}/chat/completions", data=data, method="POST",
            headers={"Content-Type": "application/json",
                     "Authorization": f"Bearer {endpoint.api_key}"})
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:
                parsed = json.loads(answer.read().decode("utf-8"))
                return parsed if isinstance(parsed, dict) else {}
        except urllib.error.HTTPError as exc:
            if exc.code < 500:
                raise AgentUnreachable(
                    f"judge endpoint refused the request: HTTP {exc.code}") from exc
            last = f"HTTP {exc.code}"
        except (urllib.error.URLError, OSError) as exc:
            last = str(exc)[:200]
        time.sleep(0.5 * 2**attempt)
    raise AgentUnreachable(f"judge endpoint {endpoint.base_url} unreachable: {last}")


def reply_text(answer: dict[str, Any]) -> str:
    choices = answer.get("choices") or [{}]
    message = choices[0].get("message") or {}
    content = message.get("content")
    return content if isinstance(content, str) else ""
