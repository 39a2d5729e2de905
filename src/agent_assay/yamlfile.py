"""Read a YAML file a user wrote, failing in one line that names the file and line.

Anything a file can hold is refused in one line rather than a traceback: what is not a
regular file or is too large (`infiles`), bytes that are not UTF-8, a character YAML
forbids, an escape that makes a lone surrogate (no UTF-8 text or store can hold it), a
syntax error, a key given twice, an integer too long to convert, an impossible date,
nesting too deep for the parser, an alias inside its own anchor, and aliases that expand
past `MAX_NODES` values (a "billion laughs" file, a few hundred bytes that would otherwise
take minutes and gigabytes to walk). The value rules at the end are shared by the files
that hold numbers (bands, mutant sets).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from agent_assay.errors import AssayError
from agent_assay.infiles import lone_surrogate, read_utf8

MAX_NODES = 100_000
"""Values in a document once aliases are expanded: a bands file holds about a hundred."""

_MERGE = "tag:yaml.org,2002:merge"


@dataclass(frozen=True)
class Located:
    """A parsed YAML document and the line each mapping key stands on, so a check of a
    value can name the line it came from."""

    path: Path
    data: Any
    lines: Mapping[tuple[Any, ...], int]

    def at(self, *keys: Any) -> str:
        """`file:line` of the deepest of `keys` that has a line (the file alone if none)."""
        for end in range(len(keys), 0, -1):
            line = self.lines.get(tuple(keys[:end]))
            if line is not None:
                return f"{self.path}:{line}"
        return str(self.path)


def read_located(path: Path, what: str) -> Located:
    """The parsed document with its key lines; a missing file, a syntax error or a key given
    twice in one mapping (YAML would silently keep the last) is an AssayError naming the
    file and line."""
    return parse_located(path, read_utf8(path, what), what)


def read_mapping_of(path: Path, what: str, known: Sequence[str]) -> Located:
    """`read_located` for a small file of named fields (a system's `--source`, say): a
    mapping whose every key is one of `known`, or one line naming the file and the key."""
    located = read_located(path, what)
    if not isinstance(located.data, Mapping):
        raise AssayError(f"{path}: {what} must be a mapping ({', '.join(known)})")
    unknown = sorted(set(located.data) - set(known), key=str)
    if unknown:
        raise AssayError(f"{located.at(unknown[0])}: unknown key {unknown[0]!r} "
                         f"(known: {', '.join(known)})")
    return located


def parse_located(path: Path, text: str, what: str) -> Located:
    """`read_located` for `text`, already read from `path` (for a reader that parses the
    same text again its own way)."""
    lines: dict[tuple[Any, ...], int] = {}
    try:
        data = _parse(path, what, text, lines)
    except RecursionError as exc:
        raise AssayError(f"{path}: {what} is nested too deeply to read") from exc
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        raise AssayError(
            f"{path}:{line}: {what} holds a character YAML does not allow "
            f"(#x{exc.character:04x} at offset {exc.position})"
        ) from exc
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f":{mark.line + 1}" if mark is not None else ""
        raise AssayError(f"{path}{where}: malformed YAML: {_problem(exc)}") from exc
    except yaml.YAMLError as exc:
        raise AssayError(f"{path}: malformed YAML: {' '.join(str(exc).split())}") from exc
    return Located(path, data, lines)


def _parse(path: Path, what: str, text: str, lines: dict[tuple[Any, ...], int]) -> Any:
    """The document, once its keys' lines are in `lines`; YAML's own errors propagate."""
    loader = _Loader(text, path, what)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _walk(loader, node, (), lines)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _problem(exc: yaml.MarkedYAMLError) -> str:
    """The problem, after its context when the context says what was expected ("expected a
    single document, but found another document"), on one line."""
    parts = [exc.context] if exc.context and not exc.context.startswith("while") else []
    parts.append(exc.problem or "invalid YAML")
    return " ".join(", ".join(parts).split())


class _Loader(yaml.SafeLoader):
    """SafeLoader that sizes each value as it is composed, so the alias that would expand a
    value past `MAX_NODES` values, or into itself, is refused at its own line; and whose
    unconvertible scalars (an integer past Python's digit limit, a 31st of February) are
    YAML errors at their line rather than a bare ValueError."""

    def __init__(self, text: str, path: Path, what: str) -> None:
        super().__init__(text)
        self.where, self.what = path, what
        self.sizes: dict[int, int] = {}  # id(node) -> values once its aliases are expanded

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        alias = self.check_event(yaml.AliasEvent)
        line = self.peek_event().start_mark.line + 1  # type: ignore[no-untyped-call]
        node = super().compose_node(parent, index)
        if node is None:
            return None
        size = self.sizes.get(id(node))
        if size is None and alias:
            raise AssayError(
                f"{self.where}:{line}: {self.what} has an alias inside its own anchor, a value "
                "that contains itself"
            )
        if size is None:
            size = self.sizes[id(node)] = 1 + sum(self.sizes[id(c)] for c in _children(node))
        if size > MAX_NODES:
            raise AssayError(
                f"{self.where}:{line}: {self.what} holds more than {MAX_NODES} values once its "
                "aliases are expanded; write the values out"
            )
        return node

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, TypeError, OverflowError) as exc:
            value = str(node.value) if isinstance(node, yaml.ScalarNode) else ""
            shown = repr(value) if len(value) <= 40 else f"{value[:20]!r}... ({len(value)} long)"
            kind = node.tag.rsplit(":", 1)[-1]
            raise yaml.constructor.ConstructorError(
                None, None, f"cannot read {shown} as {kind}", node.start_mark
            ) from exc


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


def _walk(
    loader: _Loader, node: yaml.Node, at: tuple[Any, ...], lines: dict[tuple[Any, ...], int]
) -> None:
    """The line of every key, over the composed document before it is built, refusing a key
    given twice in one mapping (YAML would silently keep the last) and a scalar holding a
    lone surrogate."""
    if isinstance(node, yaml.ScalarNode) and (bad := lone_surrogate(str(node.value))):
        raise AssayError(
            f"{loader.where}:{node.start_mark.line + 1}: {loader.what} holds a lone surrogate "
            f"{bad!r} (an escape no UTF-8 text can hold)"
        )
    if isinstance(node, yaml.MappingNode):
        keys: set[Any] = set()
        for key_node, value_node in node.value:
            _walk(loader, key_node, at, {})
            key = _key(loader, key_node)
            line = key_node.start_mark.line + 1
            if key in keys:
                raise AssayError(f"{loader.where}:{line}: duplicate key {key!r}")
            keys.add(key)
            lines[(*at, key)] = line
            _walk(loader, value_node, (*at, key), lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, value_node in enumerate(node.value):
            lines[(*at, index)] = value_node.start_mark.line + 1
            _walk(loader, value_node, (*at, index), lines)


def _key(loader: _Loader, node: yaml.Node) -> Any:
    """The key as the document will hold it (`1` and `"1"` are different keys)."""
    if not isinstance(node, yaml.ScalarNode):
        raise AssayError(
            f"{loader.where}:{node.start_mark.line + 1}: malformed YAML: a mapping key must be "
            "a plain value, not a list or a mapping"
        )
    return "<<" if node.tag == _MERGE else loader.construct_object(node)


def check_keys(
    doc: Located, at: tuple[Any, ...], data: Mapping[Any, Any], known: Collection[str], what: str
) -> None:
    """Refuse a key that is not in `known`: a misspelt key would be silently ignored."""
    for key in data:
        if key not in known:
            raise AssayError(
                f"{doc.at(*at, key)}: unknown key {key!r} in {what} "
                f"(known: {', '.join(sorted(known)) or 'none'})"
            )


# ---- value rules --------------------------------------------------------------------------
Check = Callable[[Any], str | None]
"""A value's rule: None when the value is acceptable, else what is wrong with it."""


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def finite(value: Any) -> str | None:
    if not _number(value):
        return f"must be a number, got {value!r}"
    return None if math.isfinite(value) else f"must be finite, got {value!r}"


def positive(value: Any) -> str | None:
    return finite(value) or (None if value > 0 else f"must be above 0, got {value!r}")


def fraction(value: Any) -> str | None:
    """A drop, a margin, a threshold or a score on a 0..1 metric: above 0, at most 1."""
    return finite(value) or (None if 0 < value <= 1 else f"must be in (0, 1], got {value!r}")


def probability(value: Any) -> str | None:
    """A significance level: strictly between 0 and 1."""
    return finite(value) or (
        None if 0 < value < 1 else f"must be between 0 and 1 (both excluded), got {value!r}"
    )


def share(value: Any) -> str | None:
    """A tolerated rate of errors: at least 0, below 1 (a tolerance of 1 cannot fail)."""
    return finite(value) or (None if 0 <= value < 1 else f"must be in [0, 1), got {value!r}")


def boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else f"must be true or false, got {value!r}"


def whole(minimum: int, maximum: int | None = None) -> Check:
    def check(value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int):
            return f"must be a whole number, got {value!r}"
        if value < minimum:
            return f"must be at least {minimum}, got {value!r}"
        return None if maximum is None or value <= maximum else (
            f"must be at most {maximum}, got {value!r}")

    return check


def text(value: Any) -> str | None:
    """A name: a string that is not blank. YAML reads a bare yes/no/on/off as a boolean."""
    if isinstance(value, bool):
        return f"must be a string, got {value!r} (quote it: YAML reads yes/no/on/off as booleans)"
    if not isinstance(value, str):
        return f"must be a string, got {value!r}"
    return None if value.strip() else "must not be blank"
