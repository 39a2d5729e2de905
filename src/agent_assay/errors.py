"""The exception types the CLI turns into a one-line message and an exit code.

Anything a user can cause (bad input, unknown ids, a missing file) raises
`AssayError` with a message that names the file, line, name or id. Anything
else is a bug and is allowed to show a traceback. An error whose exit code is not
ERROR has a type of its own that carries it (`TamperedEvidence`, `RunStopped`,
`RunInterrupted`), so no code spells an exit code where it raises; the command line
turns any of them into its exit code in one place (`cli.run_cli`).
"""


import traceback

from agent_assay.exitcodes import ExitCode


class AssayError(Exception):
    """A user-facing failure: its message is printed as one line, exit non-zero (ERROR
    unless the failure is one the exit-code table names otherwise, such as TAMPERED)."""

    exit_code: int = ExitCode.ERROR

    def __init__(self, message: str, *, exit_code: int = ExitCode.ERROR) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class TamperedEvidence(AssayError):
    """Stored evidence fails its own checks (a chain, a digest, a row that does not decode
    or fit its shape, a bundle that disagrees with itself, a damaged database): nothing
    built on it is believed. Exit TAMPERED."""

    exit_code: int = ExitCode.TAMPERED

    def __init__(self, message: str) -> None:
        super().__init__(message, exit_code=ExitCode.TAMPERED)


class RunStopped(AssayError):
    """A run that stopped early (Ctrl-C, a worker that died): what is stored stays stored,
    and the message says how to go on. Exit ERROR, or INTERRUPTED / TERMINATED for a run
    stopped by a signal (`RunInterrupted`)."""

    def __init__(self, run_id: str, what: str, *, exit_code: int = ExitCode.ERROR) -> None:
        self.run_id, self.what = run_id, what
        super().__init__(self.resume_line(), exit_code=exit_code)

    def resume_line(self, where: str = "") -> str:
        """The message, its resume command naming the store with `where` (` --db DB`, as
        messages show it; empty for the default store)."""
        return f"{self.what}; resume it with `agent-assay run --resume {self.run_id}{where}`"

    def for_cli(self, where: str) -> AssayError:
        """The one-line error `run` ends with, naming the store to resume from (`where`, see
        `resume_line`), and a plain AssayError, so the command line does not take it for a
        fresh Ctrl-C."""
        return AssayError(self.resume_line(where), exit_code=self.exit_code)


class RunInterrupted(RunStopped, KeyboardInterrupt):
    """Ctrl-C (exit INTERRUPTED) or SIGTERM (`terminated`, exit TERMINATED) during a run.
    Still a KeyboardInterrupt, so code that stops on Ctrl-C keeps stopping; also an
    AssayError, so the command line says how to resume."""

    def __init__(self, run_id: str, what: str, *, terminated: bool = False) -> None:
        super().__init__(run_id, what, exit_code=ExitCode.TERMINATED if terminated
                         else ExitCode.INTERRUPTED)


class AgentUnreachable(Exception):
    """The agent could not be reached (connection refused, timeouts, server errors after
    bounded retries, or an endpoint that refuses the credentials or the model name).

    Raised from an adapter's `run_item`. The runner records the item as crashed with this
    message, like any crash, and marks the trajectory so that `run` exits 1 after storing
    everything: an unreachable agent is a failed measurement, not a measured failure.
    """


class EnvironmentFailed(Exception):
    """The system's environment failed where no agent had a hand in it: a fresh world that
    could not be set up, a tool that raised instead of reporting its failure, an ending
    that could not be read.

    Raised from an adapter's `run_item` (the harness raises it itself around the episodes
    it drives for its model agent). Like `AgentUnreachable`, the slot is stored as crashed
    by the harness: not measured, left out of every figure and counted, and `run` exits 1.
    """


HARNESS_FAILURES: tuple[type[Exception], ...] = (AgentUnreachable, EnvironmentFailed)
"""What an adapter raises to say a slot was not measured; anything else it raises is the
agent's crash, a measured failure."""


def described(exc: BaseException) -> str:
    """`Type: message at file:line` (where it was raised): one line for a failure in code
    the harness does not own, such as an adapter's."""
    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
    where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    return " ".join(f"{type(exc).__name__}: {exc}{where}".split())


class Terminated(KeyboardInterrupt):
    """SIGTERM, turned into what Ctrl-C raises (see `cli.main`): a command stopped either way
    leaves the same state behind and says the same thing, with 143 as its exit code."""

    exit_code = ExitCode.TERMINATED


def quoted(text: str) -> str:
    """What a person typed, as an error may quote it: escaped unless plainly printable
    ASCII (a byte that is not UTF-8 arrives from the command line as a lone surrogate,
    which no terminal can print), and cut when it is long."""
    if len(text) > 48:
        return f"{quoted(text[:40])}... ({len(text)} characters)"
    return text if text.isprintable() and text.isascii() else ascii(text)
