"""Write docs/api.md from the code: every public name of `agent_assay` with its signature,
its fields and its docstring, so the Python API's reference cannot drift.

Usage: python -m tools.generate.api_reference [--check] [--out docs/api.md]

The names are `agent_assay.__all__`, grouped by the module that defines them. A function
shows its signature; a dataclass its fields with their types and defaults; a protocol or
another class its public attributes and methods with their signatures; a type alias what
it stands for; each as a stub file would declare it, docstring included. Annotations are
shown as written in the source. With --check nothing is
written: the page on disk is compared with what would be written, and the first name
whose section differs is named on one line (exit 1).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import inspect
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tools.docs_audit.generated_page import check_or_write

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "api.md"
FIX = "run python -m tools.generate.api_reference"

GROUPS = (
    ("The API", ("agent_assay.api",)),
    ("The API's options", ("agent_assay.executors.spec", "agent_assay.selection")),
    ("The vocabulary", ("agent_assay.model", "agent_assay.errors")),
    ("The plugin surface", ("agent_assay.adapters.",)),
    ("Scorers", ("agent_assay.scoring.",)),
    ("The store", ("agent_assay.store", "agent_assay.store.")),
)

INTRO = """\
# Python API reference

Every name `import agent_assay as aa` offers, with its signature and what it is for. This
page is generated from the code by `tools/generate/api_reference.py`; do not edit it by
hand. `python -m tools.generate.api_reference --check` fails, naming the first entry that
differs, when the page no longer matches the code, and `tests/docs/test_api_reference.py`
runs that check. Annotations are shown as the source writes them.

The [tutorial](tutorial.md) builds a system with these names step by step;
[Writing an adapter](adapters.md) explains the plugin surface, and
[Concepts](concepts.md) what an item, a run or a verdict is.
"""


def annotation(value: Any) -> str:
    """An annotation as the source wrote it (the modules use postponed annotations)."""
    if value is inspect.Parameter.empty:
        return ""
    return value if isinstance(value, str) else inspect.formatannotation(value)


def default(value: Any) -> str:
    """A default as a reader would write it: a function by its name, not its address."""
    return getattr(value, "__name__", None) or repr(value) if callable(value) else repr(value)


def signature(function: Callable[..., Any], name: str) -> str:
    """`name(parameters) -> returns`, one parameter per line when it would be long."""
    try:
        sig = inspect.signature(function)
    except (TypeError, ValueError):
        return f"{name}(...)"
    parts = []
    star_done = False
    for param in sig.parameters.values():
        if param.kind is param.KEYWORD_ONLY and not star_done:
            parts.append("*")
            star_done = True
        if param.kind is param.VAR_POSITIONAL:
            star_done = True
        text = {param.VAR_POSITIONAL: "*", param.VAR_KEYWORD: "**"}.get(param.kind, "")
        text += param.name
        if param.annotation is not param.empty:
            text += f": {annotation(param.annotation)}"
        if param.default is not param.empty:
            text += f" = {default(param.default)}" if param.annotation is not param.empty \
                else f"={default(param.default)}"
        parts.append(text)
    returns = annotation(sig.return_annotation)
    tail = f" -> {returns}" if returns else ""
    one_line = f"{name}({', '.join(parts)}){tail}"
    if len(one_line) <= 92:
        return one_line
    body = "".join(f"    {part},\n" for part in parts)
    return f"{name}(\n{body}){tail}"


def doc(name: str, obj: Any) -> str:
    """The object's own docstring; none rather than one inherited or made up by dataclass."""
    own = obj.__dict__.get("__doc__") if inspect.isclass(obj) else getattr(obj, "__doc__", None)
    text = inspect.cleandoc(own) if isinstance(own, str) else ""
    if text.startswith(f"{name}(") or (not inspect.isclass(obj)
                                       and own is getattr(type(obj), "__doc__", None)):
        return ""
    return text


def fields(cls: type) -> Iterator[str]:
    """A dataclass's fields: `name: type = default`."""
    for field in dataclasses.fields(cls):
        line = f"{field.name}: {annotation(field.type)}"
        if field.default is not dataclasses.MISSING:
            line += f" = {default(field.default)}"
        elif field.default_factory is not dataclasses.MISSING:
            made = getattr(field.default_factory, "__name__", "")
            line += f" = field(default_factory={made if made.isidentifier() else '...'})"
        yield line


DATACLASS_MADE = {"__match_args__", "__dataclass_fields__", "__dataclass_params__"}


def members(cls: type) -> Iterator[str]:
    """A class's own public attributes and methods, in source order."""
    hints = inspect.get_annotations(cls)
    if not dataclasses.is_dataclass(cls):  # a dataclass's are its fields, listed already
        for attr, hint in hints.items():
            if not attr.startswith("_"):
                yield f"{attr}: {annotation(hint)}"
    for attr, value in cls.__dict__.items():
        if attr.startswith("_") or attr in hints or attr in DATACLASS_MADE:
            continue
        if isinstance(value, property | functools.cached_property):
            getter = value.fget if isinstance(value, property) else value.func
            returns = annotation(inspect.signature(getter).return_annotation) if getter else ""
            yield f"{attr}: {returns}  # property" if returns else f"{attr}  # property"
        elif isinstance(value, staticmethod | classmethod):
            yield f"def {signature(value.__func__, attr)}: ...  # {type(value).__name__}"
        elif inspect.isfunction(value):
            yield f"def {signature(value, attr)}: ..."


QUOTES = '"' * 3


def docstring(text: str, indent: str) -> list[str]:
    """A docstring as it would sit in a stub file, at `indent`."""
    if not text:
        return []
    lines = text.replace(QUOTES, "'" * 3).split("\n")
    body = [f"{indent}{line}".rstrip() for line in lines]
    body[0] = f"{indent}{QUOTES}{lines[0]}"
    return [*body, f"{indent}{QUOTES}"] if len(lines) > 1 else [body[0] + QUOTES]


def entry(name: str, obj: Any) -> str:
    """One name's section: a heading, then the name as a stub file would declare it."""
    text = doc(name, obj)
    if inspect.isclass(obj):
        listed = [*(fields(obj) if dataclasses.is_dataclass(obj) else ()), *members(obj)]
        bases = [b.__name__ for b in obj.__bases__ if b is not object]
        head = f"class {name}({', '.join(bases)}):" if bases else f"class {name}:"
        decorator = ["@dataclass"] if dataclasses.is_dataclass(obj) else []
        inner = [*docstring(text, "    "), *([""] if text and listed else []),
                 *(f"    {line}" for line in listed)]
        lines = [*decorator, head, *(inner or ["    ..."])]
    elif callable(obj) and not hasattr(obj, "__origin__"):
        lines = [f"def {signature(obj, name)}:", *(docstring(text, "    ") or ["    ..."])]
    else:
        lines = [f"{name} = {obj!r}".replace("typing.", ""), *docstring(text, "")]
    return f"### {name}\n\n```python\n" + "\n".join(lines) + "\n```\n"


def group_of(module: str) -> str:
    for title, prefixes in GROUPS:
        if any(module == p or (p.endswith(".") and module.startswith(p)) for p in prefixes):
            return title
    raise LookupError(f"no group for module {module}: add it to GROUPS in {__file__}")


def render() -> str:
    """The whole page."""
    import agent_assay
    from agent_assay import _EXPORTS

    grouped: dict[str, list[str]] = {title: [] for title, _ in GROUPS}
    for name in sorted(agent_assay.__all__, key=str.lower):
        grouped[group_of(_EXPORTS[name])].append(name)
    parts = [INTRO]
    for title, names in grouped.items():
        parts.append(f"## {title}\n")
        parts += [entry(name, getattr(agent_assay, name)) for name in names]
    return "\n".join(parts)


def drift(page: str, expected: str, name: str = "docs/api.md") -> str | None:
    """One line naming the first entry of `expected` that `page` lacks or shows otherwise
    (in page order), or None when the two are identical."""
    if page == expected:
        return None
    have = {chunk.split("\n", 1)[0]: chunk for chunk in page.split("\n### ")[1:]}
    for chunk in expected.split("\n### ")[1:]:
        title = chunk.split("\n", 1)[0]
        if title not in have:
            return f"{name} has no entry for `{title}`: {FIX}"
        if have[title] != chunk:
            return f"{name} is out of date: the entry for `{title}` differs from the code; {FIX}"
    return f"{name} differs from the generated page outside the entries: {FIX}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare instead of writing; exit 1 naming the first drift")
    parser.add_argument("--out", type=Path, default=OUT, help="the page (default docs/api.md)")
    args = parser.parse_args(argv)
    expected = render()
    return check_or_write(
        args.out, expected, lambda page: drift(page, expected, str(args.out)),
        check=args.check, fix=FIX, wrote=f"{expected.count(chr(10) + '### ')} names",
    )


if __name__ == "__main__":
    sys.exit(main())
