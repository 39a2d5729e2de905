"""The one door to the inspect_ai package: importing it and naming its release.

Every other module of this system imports inspect_ai inside a function, after `require`,
so the adapter's entry point loads (``adapters list``) without the package and a missing
extra is one line naming it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from agent_assay.errors import AssayError

EXTRA = "install agent-assay[inspect]"
PINNED = "0.3.285"
"""The release whose behaviour this system was written against (the extra pins it)."""


def require() -> ModuleType:
    """inspect_ai, or one line saying how to get it."""
    try:
        return importlib.import_module("inspect_ai")
    except ModuleNotFoundError as exc:
        if exc.name is not None and exc.name.split(".")[0] != "inspect_ai":
            raise AssayError(f"inspect_ai is installed but cannot import {exc.name!r}: "
                             f"{EXTRA}") from exc
        raise AssayError(f"the inspect system needs the inspect_ai package: {EXTRA}") from exc


def installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("inspect-ai")
    except PackageNotFoundError as exc:
        raise AssayError(f"the inspect system needs the inspect_ai package: {EXTRA}") from exc
