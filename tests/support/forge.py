"""Forge an evidence bundle the way someone holding only the file would.

Open it, edit its lines (rows or header), optionally re-chain the edited run with the
project's own digest functions (every row digest and every block digest recomputed, each
block linked to the new one before it, exactly as the writer would have), and re-seal it:
the last line made the SHA-256 of the new body, so the file check passes. What is left
to catch the forgery is what the rows themselves prove.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_assay.hashing import canonical_json
from agent_assay.store.bundle import read_bundle
from agent_assay.store.encoding import chain

Line = dict[str, Any]


@dataclass
class Forgery:
    header: dict[str, Any]
    lines: list[Line]

    def rows(self, table: str, run_id: str | None = None) -> list[dict[str, Any]]:
        """The rows of `table` (of `run_id` when given), as live dicts: edit them in place."""
        return [
            line["row"] for line in self.lines
            if line["table"] == table and (run_id is None or line["row"].get("run_id") == run_id)
        ]

    def drop(self, keep: Callable[[Line], bool]) -> int:
        """Remove every line `keep` refuses; how many went."""
        before = len(self.lines)
        self.lines = [line for line in self.lines if keep(line)]
        return before - len(self.lines)

    def rechain(self, run_id: str) -> None:
        """Make `run_id`'s chain consistent again after an edit, as its writer would have."""
        by_block: dict[int, list[str]] = defaultdict(list)
        for table in chain.CHAINED_TABLES:
            for row in self.rows(table, run_id):
                row["digest"] = chain.row_digest(table, chain.content_of(table, row))
                by_block[row["block"]].append(row["digest"])
        prev = chain.GENESIS
        for block in sorted(self.rows("ledger", run_id), key=lambda b: b["seq"]):
            block["prev_digest"] = prev
            block["digest"] = chain.block_digest(
                run_id, block["seq"], block["kind"], prev, block["detail"], by_block[block["seq"]]
            )
            prev = block["digest"]

    def head(self, run_id: str) -> dict[str, Any]:
        """The head the rows end at, as a header writes it."""
        last = max(self.rows("ledger", run_id), key=lambda b: b["seq"])
        return {"seq": last["seq"], "digest": last["digest"]}

    def seal(self, path: Path) -> Path:
        """Write the forgery with a file digest line that matches it."""
        body = "".join(canonical_json(line) + "\n" for line in [self.header, *self.lines])
        data = body.encode("utf-8")
        seal = canonical_json({"sha256": hashlib.sha256(data).hexdigest()}) + "\n"
        path.write_bytes(data + seal.encode("utf-8"))
        return path


def forgery_of(bundle: Path) -> Forgery:
    header, lines = read_bundle(bundle)
    return Forgery(header, lines)
