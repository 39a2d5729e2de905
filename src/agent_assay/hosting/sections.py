"""A replay's final state sent a section at a time, and only the sections that changed.

Controls replay thousands of paths through one agent process (`hosting.replays`): gold's,
a random agent's, every mutant's. Most of them leave most of the world as the replay
before left it, yet every answer carried the whole world, encoded as JSON there and
decoded here, which was most of what a replay cost. So the answer to a job that is not a
`Task` carries, of its final state, only the sections (top-level keys) whose value is
not the one the process last sent under that key; it names the others in `unchanged`,
and the harness puts back the value it last received under each. An agent's own run (a
`Task`: a run, a twin) is answered in full, as before.

A section counts as unchanged only if pickle writes it to the same bytes as the one sent:
the same structure, the same types (1, 1.0 and True are told apart, as JSON tells them
apart) and the same float bits, so the same JSON. Each side keeps one value per key; the
two stay in step because one pipe carries the answers in the order they were made and
the harness restores every one of them, in that order (`EnvironmentReplays`). Replays'
final states share the sections put back (nothing that reads a replay changes it:
scorers are pure, and a planter copies what it plants in).
"""

from __future__ import annotations

import pickle
from typing import Any

from agent_assay.hosting.protocol import encode

GARBLED: dict[str, object] = {"kind": "garbled"}


def _pickled(value: Any) -> bytes | None:
    try:
        return pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
    except Exception:  # an object pickle refuses: the section is always sent
        return None


class SentSections:
    """The agent process's side: the pickle of each section it last sent."""

    def __init__(self) -> None:
        self.sent: dict[str, bytes] = {}

    def answer(self, trajectory: dict[str, Any]) -> bytes:
        """The frame answering a replay with `trajectory` (its JSON form), each section
        the harness already holds named rather than sent. Raises as `encode` does on a
        value JSON cannot carry, and then remembers nothing as sent."""
        state = trajectory.get("final_state")
        if not isinstance(state, dict) or not all(type(key) is str for key in state):
            return encode({"kind": "done", "trajectory": trajectory, "unchanged": []})
        pickles = {key: _pickled(value) for key, value in state.items()}
        unchanged = [key for key, p in pickles.items()
                     if p is not None and self.sent.get(key) == p]
        kept = set(unchanged)
        sent = {key: None if key in kept else value for key, value in state.items()}
        framed = encode({"kind": "done", "trajectory": {**trajectory, "final_state": sent},
                         "unchanged": unchanged})
        for key, p in pickles.items():
            if p is None:
                self.sent.pop(key, None)
            else:
                self.sent[key] = p
        return framed


class ReceivedSections:
    """The harness's side: the value of each section last received from one process."""

    def __init__(self) -> None:
        self.received: dict[str, Any] = {}

    def restored(self, message: dict[str, object]) -> dict[str, object]:
        """`message` (decoded) with the sections it names as unchanged put back, and the
        ones it sent remembered; garbled when it names one it never sent, or names any
        without a final state to put it in."""
        unchanged = message.pop("unchanged", [])
        trajectory = message.get("trajectory")
        state = trajectory.get("final_state") if isinstance(trajectory, dict) else None
        if not isinstance(unchanged, list) or not all(type(k) is str for k in unchanged):
            return GARBLED
        if not isinstance(state, dict):
            return message if unchanged == [] else GARBLED
        kept = set(unchanged)
        if not kept <= state.keys() or not kept <= self.received.keys():
            return GARBLED
        for key, value in state.items():
            if key in kept:
                state[key] = self.received[key]
            else:
                self.received[key] = value
        return message
