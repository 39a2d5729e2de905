"""What the benchmark's author and the certifier chose, bound into every certificate.

A verdict judged under a system's own bands, with controls allowed not to run or fewer
random seeds, is not the verdict a reader assumes from the word ADMISSIBLE. So each
control outcome's certificate carries the choices it was judged under: the digest of
the effective bands, every value that differs from the harness's defaults and which
file or flag set it, the NOT_RUN allowances and who gave them, the random-seed count,
the headline set and which of its metrics are the system's own scorers.
`integrity.choices` reads them back and names each departure in the verdict.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from agent_assay.controls.bands import CERTIFIER, Bands
from agent_assay.hashing import content_hash

BANDS_KIND = "aa.bands.1"
ALLOWED_BY_FLAG = "--allow-not-run"
ALLOWED_BY_FILE = f"{CERTIFIER} (allow_not_applicable)"


def allowances(allowed: Iterable[str], bands: Bands) -> dict[str, str]:
    """Each control kind allowed NOT_RUN, and who allowed it (the flag wins when both)."""
    by_file = {kind: ALLOWED_BY_FILE for kind in bands.not_applicable}
    return dict(sorted(((by_file if bands.allow_not_applicable else {})
                        | {kind: ALLOWED_BY_FLAG for kind in allowed}).items()))


def bound_choices(
    bands: Bands, allowed: Iterable[str], headline: Sequence[str], system_scorers: Iterable[str]
) -> dict[str, Any]:
    """The `choices` section of a certificate (see the module docstring)."""
    own = set(system_scorers)
    return {
        "bands_digest": content_hash(BANDS_KIND, bands.per_kind),
        "departures": [d.to_json() for d in bands.departures()],
        "allowed_not_run": allowances(allowed, bands),
        "random_seeds": bands.get("random_agent")["seeds"],
        "headline": list(headline),
        "system_scorers": [m for m in headline if m in own],
    }
