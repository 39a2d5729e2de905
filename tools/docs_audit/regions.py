"""Generated regions in Markdown, filled from committed artifacts under reports/.

Two forms keep the files readable as plain Markdown:

* a block: ``<!-- artifact: banking/report_mock -->`` then a fenced block, closed by
  ``<!-- /artifact -->``; its body is the verbatim text of reports/banking/report_mock.txt;
* an inline value: ``<!-- value: NAME#PATH:SPEC -->``, for example
  ``<!-- value: banking/run.json#metrics.exact:.4f -->``, then the rendered value,
  closed by ``<!-- /value -->``; the path after ``#`` walks the JSON (``.key``,
  ``["dotted.key"]``, ``[index]`` and ``[field=value]`` for the first list element whose
  field has that value), the optional ``:spec`` is a Python format spec.

Rendering replaces every region body; checking renders and compares.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agent_assay.errors import AssayError

BLOCK = re.compile(
    r"(?P<open><!-- artifact: (?P<name>[\w./-]+) -->\n)(?P<body>.*?)(?P<close><!-- /artifact -->)",
    re.DOTALL,
)
VALUE = re.compile(
    r"(?P<open><!-- value: (?P<ref>[\w./-]+#[^ >]+?)(?::(?P<spec>[^ >]*))? -->)"
    r"(?P<body>.*?)(?P<close><!-- /value -->)",
    re.DOTALL,
)
STEP = re.compile(r'\["([^"]+)"\]|\[(\d+)\]|\[(\w+)=([^\]]+)\]|\.?([^.\["\]]+)')


def walk(data: Any, path: str, where: str) -> Any:
    """Follow `path` into `data`: .key, ["dotted.key"], [index] and [field=value] steps."""
    node = data
    for quoted, index, field, wanted, key in STEP.findall(path):
        step = quoted or key or (f"{field}={wanted}" if field else index)
        try:
            if field:  # the first list element whose field has that value
                node = next(e for e in node if str(e.get(field)) == wanted)
            else:
                node = node[int(index)] if index else node[quoted or key]
        except (KeyError, IndexError, TypeError, StopIteration, AttributeError) as exc:
            raise AssayError(f"{where}: no value at {path!r} (failed at {step!r})") from exc
    return node


def load_json(reports: Path, name: str) -> Any:
    path = reports / name
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise AssayError(f"artifact not found: {path}") from exc
    except json.JSONDecodeError as exc:
        raise AssayError(f"{path}:{exc.lineno}: malformed JSON: {exc.msg}") from exc


def render_value(reports: Path, ref: str, spec: str | None) -> str:
    name, path = ref.split("#", 1)
    value = walk(load_json(reports, name), path, name)
    return format(value, spec) if spec else str(value)


def render(text: str, reports: Path) -> str:
    """Fill every region of `text` from `reports`."""

    def block(match: re.Match[str]) -> str:
        source = reports / f"{match['name']}.txt"
        try:
            body = source.read_text(encoding="utf-8")
        except FileNotFoundError as exc:
            raise AssayError(f"artifact not found: {source}") from exc
        return f"{match['open']}```text\n{body.rstrip()}\n```\n{match['close']}"

    def value(match: re.Match[str]) -> str:
        rendered = render_value(reports, match["ref"], match["spec"])
        return f"{match['open']}{rendered}{match['close']}"

    return VALUE.sub(value, BLOCK.sub(block, text))


def strip_regions(text: str) -> str:
    """The text with every generated region blanked, its tags too (a reference such as
    `ratios[0]` names a value, it claims none), line count kept, for the number audit."""

    def blank(match: re.Match[str]) -> str:
        return "\n" * match.group(0).count("\n")

    return VALUE.sub(blank, BLOCK.sub(blank, text))
