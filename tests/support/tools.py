"""The scripts under tools/ as modules, for the tests that check them.

tools/ is not a package (each script runs as `python tools/NAME.py`), so a test loads
one from its file. The module is registered under its name before it runs, because a
dataclass looks its module up there, and loaded once per test session.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

TOOLS = Path(__file__).resolve().parents[2] / "tools"


def load_tool(name: str) -> ModuleType:
    """tools/`name`.py as a module (the one already loaded, when it is)."""
    loaded = sys.modules.get(name)
    if loaded is not None and getattr(loaded, "__file__", None) == str(TOOLS / f"{name}.py"):
        return loaded
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
