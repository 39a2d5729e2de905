"""Which verifiers environment a suite is built from, written so a fresh process can load
it again.

`--source` names a `.py` file that defines `load_environment`, an environment's project
folder (its `pyproject.toml` names the environment; its package sits beside it), or a YAML
file that names either of those (or an installed module) with the arguments to build it:

    environment: ../valid-action      # relative to this file, or a module name
    args: {difficulty: medium, num_eval: 8}

The suite records the resolved location and the arguments (`describe`), and `described_in`
reads them back in the run side's process, so workers and twins load the same environment
with the same arguments, and nothing of gold is passed to them.
"""

from __future__ import annotations

import json
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_assay.errors import AssayError
from agent_assay.infiles import read_utf8
from agent_assay.yamlfile import read_mapping_of

PREFIX = "verifiers:"


@dataclass(frozen=True)
class EnvironmentSource:
    """An environment's location (an absolute path, or an installed module's name), its
    id, and the arguments `load_environment` is called with."""

    location: str
    env_id: str
    args: Mapping[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        """The suite's source line."""
        body = {"location": self.location, "env_id": self.env_id, "args": dict(self.args)}
        return PREFIX + json.dumps(body, sort_keys=True, separators=(",", ":"))

    @staticmethod
    def described_in(line: str) -> EnvironmentSource | None:
        if not line.startswith(PREFIX):
            return None
        try:
            body = json.loads(line[len(PREFIX):])
            return EnvironmentSource(str(body["location"]), str(body["env_id"]),
                                     dict(body.get("args") or {}))
        except (json.JSONDecodeError, KeyError, TypeError):
            return None

    def module_source(self) -> str:
        """What `rollout.load_environment` takes: a `.py` path or a module name, with an
        environment folder put first on the import path."""
        path = Path(self.location)
        if path.is_dir():
            folder = str(path)
            if folder not in sys.path:
                sys.path.insert(0, folder)
            return self.env_id.replace("-", "_")
        return self.location


def resolve(source: Path | None) -> EnvironmentSource:
    """The environment `--source` names; a one-line error naming the file otherwise."""
    if source is None:
        raise AssayError("the verifiers adapter needs --source: an environment's folder, "
                         "its .py file, or a YAML file naming one with its arguments")
    path = Path(source).resolve()
    if path.suffix in (".yaml", ".yml"):
        return _from_yaml(path)
    return EnvironmentSource(str(path), _env_id(path))


def _from_yaml(path: Path) -> EnvironmentSource:
    located = read_mapping_of(path, "a verifiers source file", ("environment", "args"))
    spec = located.data
    named = spec.get("environment")
    if not isinstance(named, str) or not named:
        raise AssayError(f"{located.at('environment')}: 'environment' must name a folder, "
                         "a .py file or a module")
    args = spec.get("args") or {}
    if not isinstance(args, Mapping):
        raise AssayError(f"{located.at('args')}: 'args' must be a mapping of "
                         "load_environment arguments")
    local = (path.parent / named).resolve()
    if local.exists():
        return EnvironmentSource(str(local), _env_id(local), dict(args))
    if "/" in named or named.endswith(".py"):
        raise AssayError(f"{path}: environment {named}: no such file or folder")
    return EnvironmentSource(named, named, dict(args))


def _env_id(path: Path) -> str:
    if path.is_file():
        if path.suffix != ".py":
            raise AssayError(f"{path}: a verifiers source is a folder, a .py file or a YAML "
                             "file")
        return path.stem
    project = path / "pyproject.toml"
    if not project.is_file():
        raise AssayError(f"{path}: no pyproject.toml naming the environment")
    try:
        name = tomllib.loads(read_utf8(project, "pyproject.toml"))["project"]["name"]
    except (tomllib.TOMLDecodeError, KeyError, TypeError) as exc:
        raise AssayError(f"{project}: cannot read [project].name ({exc})") from exc
    if not (path / str(name).replace("-", "_")).is_dir():
        raise AssayError(f"{path}: no package folder {str(name).replace('-', '_')}/ beside "
                         "its pyproject.toml")
    return str(name)
