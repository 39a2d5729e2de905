"""Half-open validity windows shared by grants, credentials and decisions.

Promise: one definition of "in force" - from the start instant inclusive up to the
expiry instant exclusive - so the replay, the covering-chain search and the
credential check can never disagree about a boundary. Must not import agent_assay,
nor synthworld's replay, relationship-derivation or evaluator helpers.
"""

from datetime import datetime


def is_in_force(valid_from: datetime, expires_at: datetime, at: datetime) -> bool:
    """Return whether `at` falls inside `[valid_from, expires_at)`.

    The expiry instant itself is outside the window: a record that expires at 10:00
    has no authority at 10:00.
    """

    return valid_from <= at < expires_at
