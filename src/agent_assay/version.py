"""The harness's own version: recorded in every run's manifest and every certificate.

A certificate says the harness could go red *as it was then*; a different
harness version has not shown that, so the version travels with the evidence.
"""

from functools import cache
from importlib.metadata import PackageNotFoundError, version


@cache
def harness_version() -> str:
    try:
        return version("agent-assay")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"
