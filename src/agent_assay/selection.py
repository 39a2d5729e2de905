"""Which items a run covers (or a mutation pass mutates): named ids, glob patterns, tags
and a limit, composed in one documented order.

1. Items named by id or matched by a pattern, when any is given (their union); every id
   must be an item and every pattern must match one, or the selection is refused.
2. Of those, the items carrying at least one of the tags, when any is given.
3. Of those, the first `limit` in id order.

Whatever order ids were given in, the chosen items are in id order, so two selections
of the same items define the same run. An empty result is refused, never run.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from agent_assay.errors import AssayError, quoted
from agent_assay.model import Item

SHOWN = 3


@dataclass(frozen=True)
class Selection:
    """Which items a run covers: ids, patterns, tags and a limit, composed in the order
    this module's docstring gives (`EVERY`, the default, is every item)."""

    ids: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    """Shell-style globs (`*`, `?`, `[...]`) matched against the whole id, case-sensitive."""
    tags: tuple[str, ...] = ()
    limit: int | None = None

    @classmethod
    def of(
        cls, *, ids: Sequence[str] = (), patterns: Sequence[str] = (),
        tags: Sequence[str] = (), limit: int | None = None,
    ) -> Selection:
        """From any sequences; a lone string is one id, pattern or tag, not its letters."""
        return cls(_strings(ids), _strings(patterns), _strings(tags), limit)

    def choose(self, items: Iterable[Item], where: str = "in the suite") -> list[Item]:
        """The selected items in id order; `where` names the items chosen from (the suite,
        a run) in a refusal."""
        chosen = sorted(items, key=lambda i: i.item_id)
        if self.ids or self.patterns:
            chosen = self._named(chosen, where)
        if self.tags:
            chosen = [i for i in chosen if set(self.tags) & set(i.tags)]
            if not chosen:
                among = " that --items/--match chose" if self.ids or self.patterns else ""
                raise AssayError(
                    f"no item {where}{among} carries tag(s): {', '.join(self.tags)}")
        if self.limit is not None:
            if self.limit < 1:
                raise AssayError(f"--limit must be at least 1, got {self.limit}")
            chosen = chosen[: self.limit]
        return chosen

    def _named(self, items: list[Item], where: str) -> list[Item]:
        ids = [i.item_id for i in items]
        known = set(ids)
        unknown = [i for i in dict.fromkeys(self.ids) if i not in known]
        if unknown:
            close = difflib.get_close_matches(unknown[0], ids, n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            more = f" (and {len(unknown) - 1} more unknown)" if len(unknown) > 1 else ""
            raise AssayError(
                f"unknown item id {quoted(unknown[0])}{more}: no such item {where} "
                f"({len(ids)} items){hint}"
            )
        for pattern in self.patterns:
            if not any(fnmatchcase(i, pattern) for i in ids):
                raise AssayError(f"--match {quoted(pattern)} matches no item {where} "
                                 f"({len(ids)} items, e.g. {', '.join(ids[:SHOWN])})")
        named = set(self.ids)
        return [i for i in items
                if i.item_id in named or any(fnmatchcase(i.item_id, p) for p in self.patterns)]


def _strings(values: Sequence[str]) -> tuple[str, ...]:
    return (values,) if isinstance(values, str) else tuple(values)


EVERY = Selection()
