"""The one door to the inspect_ai package: importing it and naming its release.

Every other module of this system imports inspect_ai inside a function, after `require`,
so the adapter's entry point loads (``adapters list``) without the package and a missing
extra is one line naming it.
"""

from __future__ import annotations

from types import ModuleType

from agent_assay_bundled import extras
from agent_assay_bundled.extras import require_module

EXTRA = "install agent-assay[inspect]"
PINNED = "0.3.285"
"""The release whose behaviour this system was written against (the extra pins it)."""


def require() -> ModuleType:
    """inspect_ai, or one line saying how to get it."""
    return require_module("inspect_ai", system="inspect", extra=EXTRA)


def installed_version() -> str:
    return extras.installed_version("inspect-ai", system="inspect", package="inspect_ai",
                                    extra=EXTRA)
