"""What a system's headline scorer is held against, trajectory by trajectory.

The harness cannot read what a system scorer means, only compare what it does with the
generic metrics, whose meaning it knows. A scorer that declares `refines = G` claims to be
a sharper G: it passes only where G passes, and wherever G passes on gold. A scorer that
declares nothing claims no relation to any one generic metric, and may judge one aspect of
an item (one field of a record, say) that no generic metric judges alone; it is held to
what every such aspect shares. The reference credits a trajectory that every generic lens
passes (nothing any generic metric can see is wrong with it), and rejects one where no lens
credits anything beyond what doing nothing gets on that item (nothing is right). The lenses
are the generic metrics that give credit, the binary and fraction ones; the counts
(tools.wrong and the like) are left out, because doing nothing scores them perfectly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agent_assay.errors import AssayError
from agent_assay.scoring.base import ScoreKind, Scorer, passes, refined_metric
from agent_assay.scoring.registry import default_scorers

Values = Mapping[str, float | None]
"""One trajectory's value on each metric (None: n/a)."""

DECLARED_ONLY = frozenset({"gold", "do_nothing", "own"})
"""Where a refinement's own reference decides what is credited; on random calls and
mutants, where a refinement may see defects its generic metric misses, every lens must
pass before a failing verdict counts as withheld."""

RESULT_LENSES = ("outcome.match", "state.assertions")
"""The generic metrics that judge where an episode and its world ended (path metrics judge
one valid path among many)."""


@dataclass(frozen=True)
class Reference:
    """One system headline scorer and what it is held against."""

    scorer: Scorer
    refines: str | None
    lenses: tuple[Scorer, ...]

    def describe(self) -> str:
        if self.refines:
            return f"{self.refines} (declared: refines)"
        return "every generic lens (" + ", ".join(s.name for s in self.lenses) + ")"

    def perfect(self, values: Values) -> bool | None:
        """Every applicable lens passes (None: no lens applies)."""
        verdicts = [passes(s.kind, values.get(s.name)) for s in self.lenses]
        known = [v for v in verdicts if v is not None]
        return all(known) if known else None

    def nothing_right(self, values: Values, floors: Values) -> bool | None:
        """No applicable lens credits more than doing nothing does (`floors`), and not every
        lens passes (doing nothing may be exactly right)."""
        known = [(s.name, v) for s in self.lenses if (v := values.get(s.name)) is not None]
        if not known:
            return None
        if self.perfect(values):
            return False
        return all(v <= (floors.get(name) or 0.0) for name, v in known)

    def refined(self, values: Values) -> bool | None:
        assert self.refines is not None
        return passes(self.refined_kind, values.get(self.refines))

    @property
    def refined_kind(self) -> ScoreKind:
        return next(s.kind for s in self.lenses if s.name == self.refines)

    def credits(self, values: Values, source: str) -> bool | None:
        if self.refines and source in DECLARED_ONLY:
            return self.refined(values)
        return self.perfect(values)

    def rejects(self, values: Values, floors: Values) -> bool | None:
        if self.refines:
            verdict = self.refined(values)
            return None if verdict is None else not verdict
        return self.nothing_right(values, floors)


def floors(ref: Reference, nulls: Sequence[Values]) -> dict[str, float | None]:
    """Per lens, the least credit a null agent gets on this item: what doing nothing earns.
    A null agent that every lens passes (doing nothing is right here) sets no floor."""
    wrong = [n for n in nulls if not ref.perfect(n)]
    return {s.name: min((v for n in wrong if (v := n.get(s.name)) is not None), default=None)
            for s in ref.lenses}


def lenses_of(scorers: Sequence[Scorer]) -> tuple[Scorer, ...]:
    generic = {s.name for s in default_scorers()}
    return tuple(s for s in scorers if s.name in generic and s.kind in ("binary", "fraction"))


def references(scorers: Sequence[Scorer], headline: Sequence[str]) -> list[Reference]:
    """One reference per headline metric that is a system scorer with a pass/fail kind; a
    `refines` that names no generic pass/fail metric is a one-line error."""
    generic = {s.name for s in default_scorers()}
    by_name = {s.name: s for s in scorers}
    lenses = lenses_of(scorers)
    made = []
    for name in headline:
        scorer = by_name.get(name)
        if scorer is None or name in generic or scorer.kind == "measure":
            continue
        refines = refined_metric(scorer)
        if refines is not None and by_name.get(refines) not in lenses:
            raise AssayError(f"scorer {name} declares it refines {refines!r}, which is not a "
                             "generic metric that gives credit (binary or fraction)")
        made.append(Reference(scorer, refines, lenses))
    return made
