"""What a run covers and how its config is set, from the command line: --items,
--items-file, --match, --tag, --limit and -M/--set.

Files and KEY=VALUE pairs are read and refused here, in one line naming the file and line
or the pair, before a command opens the store; ids, patterns and settings are checked
against the system where the API resolves them (`agent_assay.selection`,
`agent_assay.adapters.settings`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from agent_assay.errors import AssayError, quoted

SELECTION_ORDER = (
    "--items, --items-file and --match name items (their union); --tag keeps those "
    "carrying a tag; --limit keeps the first N by id."
)


def split_ids(values: Sequence[str]) -> list[str]:
    """The ids of every --items value, each a comma-separated list."""
    ids = []
    for value in values:
        for part in value.split(","):
            if not part.strip():
                raise AssayError(f"--items {quoted(value)}: an empty item id (ids are "
                                 "separated by commas)")
            ids.append(part.strip())
    return ids


def file_ids(path: Path) -> list[str]:
    """The ids of an --items-file: one per line; blank lines, and anything from a `#`
    that starts a line or follows a space, are ignored. A file naming no id is refused:
    an empty selection would otherwise mean every item."""
    from agent_assay.infiles import read_utf8

    text = read_utf8(path, "--items-file").removeprefix("\ufeff")
    ids = []
    for line in text.splitlines():
        content = line.split(" #", 1)[0].split("\t#", 1)[0].strip()
        if content and not content.startswith("#"):
            ids.append(content)
    if not ids:
        raise AssayError(f"{path}: --items-file names no item id (only blank lines and "
                         "comments)")
    return ids


def selection_options[F: Callable[..., Any]](function: F) -> F:
    """The item selection options; the command receives one `selection` (`api.Selection`:
    the ids of --items and --items-file together, the --match patterns, the tags and the
    limit)."""

    @functools.wraps(function)
    def chosen(*args: Any, **kwargs: Any) -> Any:
        named = split_ids(kwargs.pop("item_ids"))
        listed = kwargs.pop("items_file")
        ids = tuple(named + (file_ids(listed) if listed is not None else []))
        patterns, tags, limit = kwargs.pop("match"), kwargs.pop("tags"), kwargs.pop("limit")
        if any(not pattern for pattern in patterns):
            raise AssayError("--match needs a pattern (an empty one matches no item)")
        from agent_assay.api import Selection

        kwargs["selection"] = Selection.of(ids=ids, patterns=patterns, tags=tags, limit=limit)
        return function(*args, **kwargs)

    options = (
        click.option("--items", "item_ids", multiple=True, metavar="ID[,ID...]",
                     help=f"Only these items (repeatable). {SELECTION_ORDER}"),
        click.option("--items-file", type=click.Path(path_type=Path), default=None,
                     metavar="FILE",
                     help="Only the items FILE names, one id per line (# starts a comment)."),
        click.option("--match", multiple=True, metavar="GLOB",
                     help="Only items whose id matches GLOB (*, ?, [...]; repeatable)."),
        click.option("--tag", "tags", multiple=True,
                     help="Only items carrying this tag (repeatable: any of them)."),
        click.option("--limit", type=int, default=None, help="Only the first N items (by id)."),
    )
    decorated: Callable[..., Any] = chosen
    for option in reversed(options):
        decorated = option(decorated)
    return decorated  # type: ignore[return-value]


def _pairs(ctx: click.Context, param: click.Parameter, values: Sequence[str]) -> dict[str, str]:
    settings: dict[str, str] = {}
    for pair in values:
        key, equals, value = pair.partition("=")
        if not equals or not key.strip():
            raise AssayError(f"-M {quoted(pair)}: a setting is KEY=VALUE")
        if key.strip() in settings:
            raise AssayError(f"-M {quoted(key.strip())} is given twice")
        settings[key.strip()] = value
    return settings


settings_option = click.option(
    "-M", "--set", "settings", multiple=True, metavar="KEY=VALUE", callback=_pairs,
    help="Set a parameter the config declares settable (repeatable); the value is read as "
         "its declared type and enters the config hash.",
)
