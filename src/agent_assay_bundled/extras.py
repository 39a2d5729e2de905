"""Reaching a benchmark's package that an extra installs: importing it and naming its
release, each a one-line error saying how to install it when it is missing (so a system's
entry point loads, for `adapters list`, without its package)."""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from types import ModuleType

from agent_assay.errors import AssayError


def require_module(module: str, *, system: str, extra: str) -> ModuleType:
    """`module`; its package missing, or a dependency of it missing, is one line naming
    `extra` (how to install it) for `system`."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        top = module.split(".")[0]
        if exc.name is not None and exc.name.split(".")[0] != top:
            raise AssayError(f"{top} is installed but cannot import {exc.name!r}: "
                             f"{extra}") from exc
        raise AssayError(f"the {system} system needs the {top} package: {extra}") from exc


def installed_version(distribution: str, *, system: str, package: str, extra: str) -> str:
    """The installed release of `distribution`, or one line naming `extra`."""
    try:
        return version(distribution)
    except PackageNotFoundError as exc:
        raise AssayError(f"the {system} system needs the {package} package: {extra}") from exc
