"""Where a model lives: an OpenAI-compatible base URL, a model name and an API key.

Values a config states win (except the key, which is read from the environment only,
since configs are stored); the environment (``AA_MODEL_BASE_URL``, ``AA_MODEL``,
``AA_MODEL_API_KEY``) fills only what the config leaves unset, so a config named for one
model can never be silently pointed at another by a stray variable. The key is never
recorded anywhere; the URL and model are, and a loopback URL is what makes a run's cost
an explicit 0.0 ("local model").
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from agent_assay.errors import AssayError

ENV_BASE_URL = "AA_MODEL_BASE_URL"
ENV_MODEL = "AA_MODEL"
ENV_API_KEY = "AA_MODEL_API_KEY"
DEFAULT_LOCAL_PORT = 8765
DEFAULT_BASE_URL = f"http://127.0.0.1:{DEFAULT_LOCAL_PORT}/v1"
LOOPBACK_KEY = "not-needed-for-a-loopback-endpoint"


def is_loopback(base_url: str) -> bool:
    """True for localhost and any 127.0.0.0/8 or ::1 address."""
    host = urlsplit(base_url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Endpoint:
    base_url: str
    model: str
    api_key: str

    @property
    def loopback(self) -> bool:
        return is_loopback(self.base_url)

    def public(self) -> dict[str, Any]:
        """What a run may record about the endpoint: never the key."""
        return {"base_url": self.base_url, "model": self.model, "loopback": self.loopback}


def resolve_endpoint(
    params: Mapping[str, Any], environ: Mapping[str, str] | None = None
) -> Endpoint:
    env = os.environ if environ is None else environ
    base_url = str(params.get("base_url") or env.get(ENV_BASE_URL) or DEFAULT_BASE_URL)
    model = params.get("model") or env.get(ENV_MODEL)
    if not model:
        raise AssayError(f"no model named: set 'model' in the config or {ENV_MODEL}")
    scheme = urlsplit(base_url).scheme
    if scheme not in ("http", "https"):
        raise AssayError(f"model base URL must be http(s)://..., got {base_url!r}")
    api_key = env.get(ENV_API_KEY, "")  # never from a config: configs are stored and hashed
    if not api_key:
        if not is_loopback(base_url):
            raise AssayError(f"{base_url} is not a loopback endpoint: set {ENV_API_KEY}")
        api_key = LOOPBACK_KEY
    return Endpoint(base_url=base_url.rstrip("/"), model=str(model), api_key=api_key)
