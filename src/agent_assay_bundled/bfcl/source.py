"""Which BFCL category and release a suite is built from, written so a fresh process can
load it again.

`--source` is a YAML file:

    benchmark: multi_turn_miss_func@2026.3.23   # CATEGORY[@VERSION]
    sample: {size: 20, seed: 38}                # optional: a seeded subset of the entries

VERSION defaults to the installed `bfcl-eval`; any other is refused, since the entries
and the checker are the installed package's. Without `--source` the suite is every entry
of multi_turn_base. The suite's source line (`describe`) names the category and version,
and `described_in` reads it back on the run side.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from agent_assay.errors import AssayError
from agent_assay.yamlfile import Located, read_mapping_of

PREFIX = "bfcl:"
PACKAGE = "bfcl-eval"
COVERED = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param",
           "multi_turn_long_context")
LEFT_OUT = {
    "memory": "its environments need faiss and sentence-transformers, which bfcl-eval pins "
              "against this project's numpy",
    "web_search": "its environment calls a live search API through packages bfcl-eval pins "
                  "against this project's",
}
DEFAULT = "multi_turn_base"
INSTALL_HINT = f"pip install {PACKAGE}==VERSION --no-deps (see docs/bfcl.md)"


def installed_version() -> str:
    """The installed bfcl-eval's version; a one-line error when it is absent."""
    try:
        return version(PACKAGE)
    except PackageNotFoundError:
        raise AssayError(f"the bfcl adapter needs {PACKAGE}, which is not installed: "
                         f"{INSTALL_HINT}") from None


@dataclass(frozen=True)
class Benchmark:
    """A BFCL category at a release, and the entry ids a sample kept (None: all)."""

    category: str
    version: str
    sample: tuple[int, int] | None = None

    def describe(self) -> str:
        """The suite's source line."""
        body = {"category": self.category, "version": self.version,
                "sample": list(self.sample) if self.sample else None}
        return PREFIX + json.dumps(body, sort_keys=True, separators=(",", ":"))

    @staticmethod
    def described_in(line: str) -> Benchmark | None:
        if not line.startswith(PREFIX):
            return None
        try:
            body = json.loads(line[len(PREFIX):])
            sample = body.get("sample")
            return checked(str(body["category"]), str(body["version"]),
                           (int(sample[0]), int(sample[1])) if sample else None)
        except (json.JSONDecodeError, KeyError, TypeError, IndexError, ValueError):
            return None

    def kept(self, ids: Sequence[str]) -> list[str]:
        """The sample's ids in the benchmark's order: `size` drawn with `seed`."""
        if self.sample is None:
            return list(ids)
        size, seed = self.sample
        chosen = set(random.Random(seed).sample(list(ids), min(size, len(ids))))
        return [i for i in ids if i in chosen]


def checked(category: str, wanted: str | None, sample: tuple[int, int] | None) -> Benchmark:
    """A benchmark this adapter covers, at the installed release; one-line errors else."""
    if category not in COVERED:
        why = next((text for name, text in LEFT_OUT.items() if category.startswith(name)),
                   None)
        reason = f" ({category} is left out: {why})" if why else ""
        raise AssayError(f"bfcl: unknown category {category!r}{reason}; covered: "
                         f"{', '.join(COVERED)}; left out: " +
                         "; ".join(f"{name} ({text})" for name, text in LEFT_OUT.items()))
    have = installed_version()
    if wanted is not None and wanted != have:
        raise AssayError(f"bfcl: version {wanted} is not the installed {PACKAGE} ({have}); "
                         f"{INSTALL_HINT.replace('VERSION', wanted)}")
    return Benchmark(category, have, sample)


def parse(spec: str, sample: tuple[int, int] | None = None) -> Benchmark:
    """`CATEGORY[@VERSION]`."""
    category, _, wanted = spec.strip().partition("@")
    return checked(category, wanted or None, sample)


def resolve(source: Path | None) -> Benchmark:
    """The benchmark `--source` names (see the module docstring)."""
    if source is None:
        return parse(DEFAULT)
    located = read_mapping_of(Path(source), "a bfcl source file", ("benchmark", "sample"))
    spec = located.data
    named = spec.get("benchmark")
    if not isinstance(named, str) or not named:
        raise AssayError(f"{located.at('benchmark')}: 'benchmark' must be CATEGORY[@VERSION], "
                         f"e.g. {DEFAULT}@{installed_version()}")
    return parse(named, _sample(spec.get("sample"), located))


def _sample(value: object, located: Located) -> tuple[int, int] | None:
    if value is None:
        return None
    size = value.get("size") if isinstance(value, dict) else None
    seed = value.get("seed") if isinstance(value, dict) else None
    if not (isinstance(size, int) and isinstance(seed, int) and size > 0):
        raise AssayError(f"{located.at('sample')}: 'sample' must be {{size: N, seed: S}} "
                         "with N > 0")
    return size, seed
