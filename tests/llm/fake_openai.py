"""An in-process OpenAI-compatible HTTP server on loopback, for tests without a model.

Real HTTP (http.server in a thread) answered by a policy: a callable from the parsed
request body to an Action. `scripted(...)` turns a list of actions into a policy that
answers them in order. Every request body is kept in `server.requests`.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Action:
    status: int = 200
    body: dict[str, Any] = field(default_factory=dict)
    delay_s: float = 0.0


Policy = Callable[[dict[str, Any]], Action]


def completion(
    *,
    content: str | None = None,
    calls: Sequence[tuple[str, str | Any]] = (),
    model: str = "fake-model",
    prompt_tokens: int = 11,
    completion_tokens: int = 7,
) -> Action:
    """A chat completion: a final answer (`content`) or tool calls (name, raw arguments)."""
    tool_calls = [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": name, "arguments": args},
        }
        for i, (name, args) in enumerate(calls)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return Action(
        body={
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if tool_calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    )


def call(name: str, **args: Any) -> tuple[str, str]:
    return name, json.dumps(args)


def error(status: int, message: str = "scripted failure", delay_s: float = 0.0) -> Action:
    return Action(status=status, body={"error": {"message": message, "type": "fake"}},
                  delay_s=delay_s)


def scripted(actions: Sequence[Action]) -> Policy:
    queue = list(actions)
    lock = threading.Lock()

    def policy(body: dict[str, Any]) -> Action:
        with lock:
            if not queue:
                return error(500, "script exhausted")
            return queue.pop(0)

    return policy


class FakeServer:
    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def do_GET(self) -> None:
                self._send(200, {"object": "list", "data": [{"id": "fake-model"}]})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append(body)
                action = server.policy(body)
                if action.delay_s:
                    time.sleep(action.delay_s)
                self._send(action.status, action.body)

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


@contextmanager
def fake_server(policy: Policy) -> Iterator[FakeServer]:
    server = FakeServer(policy)
    server.thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()


def closed_port() -> int:
    """A loopback port that was just bound and released: nothing listens on it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
