"""Which AgentDojo suite a suite is built from, written so a fresh process loads it again.

``--source FILE`` names a small YAML file:

    suite: workspace@v1.2.2     # SUITE[@VERSION]; no version: the newest the package has
    variant: utility            # utility (default): one item per user task;
                                # security: one item per (user task, injection task)
    modules: []                 # imported first, like agentdojo's --module-to-load, so a
                                # module that calls register_suite can add suites (a name,
                                # or a .py file relative to this one)
    tasks: []                   # user task ids to keep (default: every one)

Without ``--source`` the suite is ``workspace`` at the newest version. The suite's source
line is ``agentdojo:`` and this spec as canonical JSON (`describe`); `described_in` reads
it back in the run side's process, so workers and twins load the same suite.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_assay.errors import AssayError
from agent_assay.yamlfile import read_mapping_of
from agent_assay_bundled.agentdojo import dojo

PREFIX = "agentdojo:"
VARIANTS = ("utility", "security")
FIELDS = ("suite", "variant", "modules", "tasks")
DEFAULT_SUITE = "workspace"


@dataclass(frozen=True)
class DojoSource:
    """A suite, its benchmark version, the variant, extra modules and a task subset."""

    suite: str
    version: str
    variant: str = "utility"
    modules: tuple[str, ...] = ()
    tasks: tuple[str, ...] = ()

    def describe(self) -> str:
        body = {"suite": self.suite, "version": self.version, "variant": self.variant,
                "modules": list(self.modules), "tasks": list(self.tasks)}
        return PREFIX + json.dumps(body, sort_keys=True, separators=(",", ":"))

    @staticmethod
    def described_in(line: str) -> DojoSource | None:
        if not line.startswith(PREFIX):
            return None
        try:
            body = json.loads(line[len(PREFIX):])
            return DojoSource(str(body["suite"]), str(body["version"]), str(body["variant"]),
                              tuple(map(str, body["modules"])), tuple(map(str, body["tasks"])))
        except (json.JSONDecodeError, KeyError, TypeError):
            return None

    def task_suite(self) -> Any:
        """agentdojo's TaskSuite this source names (its modules imported first)."""
        dojo.import_modules(self.modules)
        return dojo.task_suite(self.suite, self.version)


def default_source() -> DojoSource:
    dojo.load_suites_module()
    return DojoSource(DEFAULT_SUITE, dojo.newest_version())


def parse_suite(text: str) -> tuple[str, str | None]:
    """``SUITE[@VERSION]`` -> (suite, version or None)."""
    name, _, version = text.partition("@")
    return name.strip(), (version.strip() or None) if version else None


def load_source(path: Path) -> DojoSource:
    """Read the YAML file; any fault names the file and the line."""
    doc = read_mapping_of(path, "an AgentDojo source file", FIELDS)
    data = doc.data
    if "suite" not in data:
        raise AssayError(f"{path}:1: expected a mapping with 'suite: SUITE[@VERSION]'")

    def strings(key: str) -> tuple[str, ...]:
        value = data.get(key) or []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise AssayError(f"{doc.at(key)}: field {key!r} must be a list of strings")
        return tuple(value)

    if not isinstance(data["suite"], str) or not data["suite"].strip():
        raise AssayError(f"{doc.at('suite')}: field 'suite' must be SUITE[@VERSION]")
    variant = data.get("variant", "utility")
    if variant not in VARIANTS:
        raise AssayError(f"{doc.at('variant')}: field 'variant' must be one of "
                         f"{', '.join(VARIANTS)}, got {variant!r}")
    modules = tuple(str((path.parent / m).resolve()) if m.endswith(".py") else m
                    for m in strings("modules"))
    dojo.load_suites_module()
    dojo.import_modules(modules)
    name, version = parse_suite(data["suite"])
    spec = DojoSource(name, version or dojo.newest_version(), str(variant), modules,
                      strings("tasks"))
    try:
        suite = spec.task_suite()
    except AssayError as exc:
        raise AssayError(f"{doc.at('suite')}: {exc}") from exc
    unknown = [t for t in spec.tasks if t not in suite.user_tasks]
    if unknown:
        raise AssayError(f"{doc.at('tasks')}: {spec.suite}@{spec.version} has no user task "
                         f"{unknown[0]!r}")
    return spec
