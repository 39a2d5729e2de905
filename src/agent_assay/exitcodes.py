"""What a command's exit code means: one table for every command, so a CI job can gate on it.

A code says what kind of answer the command gave, not which command gave it. Each command
exits with the codes that can happen to it (docs/ci.md lists them per command); none
gives a code another meaning. Tampered stays 2, the code `verify`, `report` and every
refusal to build on edited evidence exited with before this table existed; 3 was
`controls run`'s for a verdict that is not admissible (a NOT_RUN without allowance), and
now covers every inadmissible verdict, failed controls included, which used to share 2
with tampered evidence.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    """Done: the run is admissible, the comparison was made and nothing regressed."""
    ERROR = 1
    """Bad input (an unknown id, a malformed file, a wrong option) or a harness failure
    (slots that were not measured, a full disk): nothing was judged."""
    TAMPERED = 2
    """The stored evidence fails its own checks (chain, digests, schema guards, a bundle
    that disagrees with its rows, a store that cannot be decoded): nothing is believed."""
    INADMISSIBLE = 3
    """The evidence is intact, but the controls do not let the number be reported."""
    REFUSED = 4
    """A number was refused though each run is intact: a comparison of runs that are not
    comparable, or a headline the report will not stand behind (a single pass of a config
    not shown to be deterministic)."""
    REGRESSED = 5
    """`compare --fail-on-regression`: a gated metric of B is worse than the baseline A."""
    INTERRUPTED = 130
    """Ctrl-C (128 + SIGINT): what finished is stored and the command says how to go on."""
    TERMINATED = 143
    """SIGTERM (128 + SIGTERM), handled as Ctrl-C is."""

