"""Golden scripts: loading, validating and exposing the agent-visible part of each one.

Promise: `load_scripts` returns every script under a directory sorted by id, identically on
every call, or raises ScriptError whose message is a single line naming the file (and the
line, when YAML tells us). An agent may only ever see `Script.public()`. The YAML files on
disk are the source of truth. This module must not import agent_assay.
"""

from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml

from synthbank.tools import OUTCOMES, TOOL_SPECS
from synthbank.validation import check_arguments

FIELDS = (
    "id", "tag", "caller", "request", "expected_path", "expected_outcome", "state_assertions",
)


class ScriptError(ValueError):
    """A malformed script file; str() is one line: `file[:line]: problem`."""


@dataclass(frozen=True)
class PublicRequest:
    """The only thing an agent may see: who is calling and what they typed."""

    id: str
    caller: str
    request: str


@dataclass(frozen=True)
class ExpectedCall:
    tool: str
    args: dict[str, Any]


@dataclass(frozen=True)
class StateAssertion:
    path: str
    equals: Any

    def holds(self, snapshot: dict[str, Any]) -> bool:
        """True when the dot path exists in the snapshot and its value equals `equals`."""
        node: Any = snapshot
        for part in self.path.split("."):
            if not isinstance(node, dict) or part not in node:
                return False
            node = node[part]
        return bool(node == self.equals)


@dataclass(frozen=True)
class Script:
    id: str
    tag: str
    caller: str
    request: str
    expected_path: tuple[ExpectedCall, ...]
    expected_outcome: str
    state_assertions: tuple[StateAssertion, ...]

    def public(self) -> PublicRequest:
        return PublicRequest(self.id, self.caller, self.request)

    def expected_tools(self) -> list[str]:
        return [call.tool for call in self.expected_path]


def default_scripts_dir() -> Path:
    """The golden scripts shipped inside the package."""
    return Path(str(files("synthbank") / "data" / "scripts"))


def read_utf8(path: Path) -> str:
    """A script file's text; what cannot be read is a ScriptError."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScriptError(f"{path}: cannot read: {exc}") from exc


def load_scripts(
    directory: Path | None = None, *, read: Callable[[Path], str] = read_utf8
) -> list[Script]:
    """Load `<tag>/<id>.yaml` files; ids must be unique across the whole directory. `read`
    gives each file's text (a caller with stricter rules for files passes its own)."""
    root = directory if directory is not None else default_scripts_dir()
    seen: dict[str, Path] = {}
    scripts: list[Script] = []
    for path in sorted(root.glob("*/*.yaml")):
        script = load_script(path, read=read)
        if script.id in seen:
            first = seen[script.id]
            raise ScriptError(f"{path}: duplicate script id {script.id!r} (also in {first})")
        seen[script.id] = path
        scripts.append(script)
    return sorted(scripts, key=lambda s: s.id)


def load_script(path: Path, *, read: Callable[[Path], str] = read_utf8) -> Script:
    """Parse and validate one file; its parent directory name must equal its tag."""
    text = read(path)
    loader: yaml.SafeLoader | None = None
    try:
        loader = yaml.SafeLoader(text)  # refuses unprintable characters right here
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = " ".join(str(exc.problem or exc.context or "invalid YAML").split())
        raise ScriptError(f"{where}: YAML syntax error: {problem}") from exc
    except yaml.YAMLError as exc:
        raise ScriptError(f"{path}: YAML error: {' '.join(str(exc).split())}") from exc
    except (ValueError, RecursionError) as exc:  # a 5000-digit integer, a 13th month, ...
        raise ScriptError(f"{path}: cannot read a value: {' '.join(str(exc).split())[:200]}") \
            from exc
    finally:
        if loader is not None:
            loader.dispose()
    return _Validator(path, root).script(data)


class _Validator:
    """Turns parsed YAML into a Script, pointing at the offending field and its line."""

    def __init__(self, path: Path, root: yaml.Node | None) -> None:
        self.path = path
        self.root = root

    def fail(self, field: str, problem: str) -> ScriptError:
        line = _line_of(self.root, field)
        where = f"{self.path}:{line}" if line is not None else str(self.path)
        one_line = problem.encode("unicode_escape").decode("ascii")  # a key may hold "\n"
        return ScriptError(f"{where}: field {field!r}: {one_line}")

    def script(self, data: object) -> Script:
        if not isinstance(data, dict):
            raise ScriptError(f"{self.path}: top level must be a mapping of script fields")
        for key in data:
            if key not in FIELDS:
                raise self.fail(str(key), "unexpected field")
        for key in FIELDS:
            if key not in data:
                raise self.fail(key, "missing")
        texts = {key: self.text(data, key) for key in ("id", "tag", "caller", "request")}
        if texts["tag"] != self.path.parent.name:
            raise self.fail("tag", f"must match its directory {self.path.parent.name!r}")
        if not texts["id"].startswith(f"{texts['tag']}-"):
            raise self.fail("id", f"must start with the tag {texts['tag']!r} and a dash")
        if data["expected_outcome"] not in OUTCOMES:
            raise self.fail("expected_outcome", f"must be one of {', '.join(OUTCOMES)}")
        return Script(
            id=texts["id"],
            tag=texts["tag"],
            caller=texts["caller"],
            request=texts["request"],
            expected_path=tuple(self.calls(data["expected_path"], texts["caller"])),
            expected_outcome=data["expected_outcome"],
            state_assertions=tuple(self.assertions(data["state_assertions"])),
        )

    def text(self, data: dict[Any, Any], key: str) -> str:
        value = data[key]
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, "must be a non-empty string")
        return value

    def items(self, value: object, field: str, keys: tuple[str, str]) -> list[dict[str, Any]]:
        if not isinstance(value, list):
            raise self.fail(field, "must be a list")
        for index, item in enumerate(value):
            if not isinstance(item, dict) or set(item) != set(keys):
                raise self.fail(f"{field}.{index}", f"must be a mapping with keys {keys}")
        return value

    def calls(self, value: object, caller: str) -> list[ExpectedCall]:
        calls = []
        for index, item in enumerate(self.items(value, "expected_path", ("tool", "args"))):
            tool, args = item["tool"], item["args"]
            if not isinstance(tool, str) or tool not in TOOL_SPECS:
                raise self.fail(f"expected_path.{index}.tool", f"unknown tool {tool!r}")
            problem = check_arguments(TOOL_SPECS[tool].parameters, args)
            if problem is not None:
                raise self.fail(f"expected_path.{index}.args", problem)
            calls.append(ExpectedCall(tool, dict(args)))
        verify = ExpectedCall("get_customer", {"customer_id": caller})
        if not calls or calls[0] != verify:
            raise self.fail("expected_path", "must start by verifying the caller with get_customer")
        return calls

    def assertions(self, value: object) -> list[StateAssertion]:
        found = []
        for index, item in enumerate(self.items(value, "state_assertions", ("path", "equals"))):
            if not isinstance(item["path"], str) or not item["path"]:
                raise self.fail(f"state_assertions.{index}.path", "must be a dot path")
            found.append(StateAssertion(item["path"], item["equals"]))
        return found


def _line_of(root: yaml.Node | None, dotted: str) -> int | None:
    """1-based line of the node at a dotted field path (list items by index), if present."""
    node = root
    for part in dotted.split("."):
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if k.value == part), None)
        elif isinstance(node, yaml.SequenceNode) and part.isdigit() and int(part) < len(node.value):
            node = node.value[int(part)]
        else:
            return None
        if node is None:
            return None
    if node is None:
        return None
    return int(node.start_mark.line) + 1
