"""Where agents run, as asked for: the one executor parameter of the API and the CLI.

This module imports nothing but the error types, so the API and the command line can
name and check an executor without loading any executor.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from agent_assay.errors import AssayError

EXECUTOR_NAMES = ("process", "dask")
MAX_WORKERS = 256
"""The most agent processes (or local Dask workers) a run starts. Every trajectory is
stored by one writer, which keeps up with about a thousand a second (see
`dask_cluster.batch_size`): 256 agents of even a quarter of a second each already
saturate it, while each process costs an interpreter's memory and the writer two pipe
descriptors, under the usual limit of 1,024 open files. A number past it is a typo or
an attack on the host, refused before anything is started or stored."""
SCHEDULER_SCHEMES = ("tcp", "tls")
"""The Dask scheduler addresses `--scheduler` takes: SCHEME://HOST:PORT."""


def scheduler_address(address: str) -> tuple[str, int]:
    """The host and port of a Dask scheduler address, or a one-line refusal: anything but
    tcp://HOST:PORT (or tls://) would leave the Dask client retrying for its whole
    timeout before failing."""
    parts = urlsplit(address)
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme not in SCHEDULER_SCHEMES or not parts.hostname or port is None \
            or parts.path not in ("", "/") or parts.query or parts.fragment:
        raise AssayError(f"--scheduler {address!r} is not a Dask scheduler address "
                         "(tcp://HOST:PORT)")
    return parts.hostname, port


@dataclass(frozen=True, slots=True)
class ExecutorSpec:
    """Where agents run, as asked for: `process` runs them in `workers` agent processes on
    this host (never in the writer's own); `dask` on a Dask cluster, the scheduler at
    `scheduler`, else a local cluster of `workers` processes started for the occasion."""

    name: str = "process"
    workers: int = 1
    scheduler: str | None = None

    def __post_init__(self) -> None:
        if self.name not in EXECUTOR_NAMES:
            known = ", ".join(EXECUTOR_NAMES)
            raise AssayError(f"unknown executor {self.name!r} (known: {known})")
        if self.workers < 1:
            raise AssayError(f"--workers must be at least 1, got {self.workers}")
        if self.workers > MAX_WORKERS:
            raise AssayError(f"--workers {self.workers} is more than {MAX_WORKERS}, the most "
                             "agent processes one writer can use")
        if self.scheduler is not None and self.name != "dask":
            raise AssayError("--scheduler needs --executor dask")
        if self.scheduler is not None:
            scheduler_address(self.scheduler)


LOCAL = ExecutorSpec()
"""One agent process on this host: what a run gets when no executor is asked for."""
