"""How amounts are written in customer text: euros with an optional two-digit cent part.

Promise: `parse_amounts(format_amount(c)) == [c]` for every non-negative integer c, so the
script author and the mock agent agree on money without sharing anything else.
This module must not import agent_assay.
"""

import re

_AMOUNT = re.compile(r"€\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{2}))?")


def format_amount(cents: int) -> str:
    """`€1,250` for whole euros, `€42.10` otherwise."""
    euros, rest = divmod(cents, 100)
    return f"€{euros:,}" if rest == 0 else f"€{euros:,}.{rest:02d}"


def parse_amounts(text: str) -> list[int]:
    """Every euro amount in the text, in integer cents, in order of appearance."""
    return [
        int(whole.replace(",", "")) * 100 + int(cents or 0)
        for whole, cents in _AMOUNT.findall(text)
    ]
