"""The single failure an audit can raise.

Promise: every refusal to audit a public stream surfaces as `AuditRejected`, so a
caller can tell "this stream breaks the fixture's replay rules" apart from a bug.
Must not import agent_assay, nor synthworld's replay, relationship-derivation or
evaluator helpers; it imports nothing at all.
"""


class AuditRejected(ValueError):
    """Raised when the public snapshot and events cannot be replayed faithfully.

    An auditor that guessed its way past a broken stream would emit confident rows
    about a world that does not exist, so it stops instead.
    """
