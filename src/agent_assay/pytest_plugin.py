"""agent-assay as a pytest gate: certify a config in CI and see each control as a test.

    pytest -p agent_assay.pytest_plugin --assay-adapter NAME --assay-config NAME \\
        [--assay-db PATH] [--assay-repeats K] [--assay-baseline RUN] [--assay-metric NAME] \\
        --junitxml assay.xml

(each option may instead be an ini key: `assay_adapter = NAME` under
`[tool.pytest.ini_options]`). With an adapter and a config, the session gains a test per
control, `agent-assay::verdict`, and with a baseline run a test per gated metric, so a
JUnit report shows each with its status and reason. The certification runs once, in this
process, when the first of them (or the `assay` fixture) needs it: a fresh run of the
config through `api.evaluate`, certified by `api.certify`, compared with the baseline by
`api.compare` with its regression gate. Nothing passes by default: an error, a refused
comparison or an untested metric fails the test that depends on it, and pytest exits 1.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from agent_assay.cli.options import DEFAULT_DB, default_db_dir
from agent_assay.errors import AssayError

if TYPE_CHECKING:
    from agent_assay.api import Certification, ComparisonResult

OPTIONS = {  # ini key / option -> (metavar, help)
    "adapter": ("NAME", "registered adapter to certify (entry point agent_assay.adapters)"),
    "config": ("NAME", "the adapter's config to run and certify"),
    "db": ("PATH", "the store (default: run/assay.db)"),
    "repeats": ("K", "repetitions per item of the run made (default: 1)"),
    "baseline": ("RUN", "a stored run to gate against: a metric of the new run that is worse "
                        "by compare's paired test fails"),
    "metric": ("NAME", "a metric to gate on (repeatable; default: the adapter's headline)"),
    "allow_not_run": ("KIND", "a control allowed NOT_RUN (repeatable)"),
    "witness": ("FILE", "append the certified head and verdict to this witness file"),
}
LISTS = ("metric", "allow_not_run")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agent-assay", "agent-assay certification gate")
    for key, (metavar, text) in OPTIONS.items():
        flag = f"--assay-{key.replace('_', '-')}"
        many = key in LISTS
        group.addoption(flag, dest=f"assay_{key}", metavar=metavar,
                        action="append" if many else "store", help=text)
        if many:
            parser.addini(f"assay_{key}", text, type="args")
        else:
            parser.addini(f"assay_{key}", text, type="string")


class Failed(Exception):
    """A gate test's failure: its message is the whole report (no traceback)."""


@dataclass
class Gate:
    """What the session certifies, made once when first asked for."""

    adapter: str
    config: str
    db: str
    repeats: int
    baseline: str | None
    metrics: tuple[str, ...]
    allow_not_run: tuple[str, ...]
    witness: Path | None
    notes: list[str] = field(default_factory=list)
    made: dict[str, object] = field(default_factory=dict)
    """What was made, or the AssayError that stopped it: each is tried once."""

    def _once[T](self, key: str, make: Callable[[], T]) -> T:
        if key not in self.made:
            try:
                self.made[key] = make()
            except AssayError as exc:
                self.made[key] = exc
        done = self.made[key]
        if isinstance(done, AssayError):
            raise done
        return done  # type: ignore[return-value]

    @property
    def certification(self) -> Certification:
        """A fresh run of the config (never a stored one: CI judges the code it checked
        out), certified; an AssayError here fails every test that needs it."""
        return self._once("certification", self._certify)

    def _certify(self) -> Certification:
        from agent_assay import api

        if self.witness is not None:  # refused before a run is made
            api.writable_witness(self.witness)
        default_db_dir(self.db)
        made = api.evaluate(self.adapter, self.config, store=self.db, repeats=self.repeats)
        return api.certify(self.adapter, store=self.db, run=made.run_id, witness=self.witness,
                           allow_not_run=self.allow_not_run, notice=self.notes.append)

    @property
    def run_id(self) -> str:
        return self.certification.run.run_id

    @property
    def comparison(self) -> ComparisonResult | None:
        """The new run gated against the baseline (None without one)."""
        if self.baseline is None:
            return None
        from agent_assay import api

        baseline = self.baseline
        return self._once("comparison", lambda: api.compare(
            baseline, self.run_id, store=self.db, fail_on_regression=True,
            metrics=self.metrics))

    def gated_metrics(self) -> tuple[str, ...]:
        if self.metrics:
            return self.metrics
        from agent_assay import api

        return tuple(api.system_of(self.adapter).facts.headline_metrics)


GATE = pytest.StashKey[Gate | None]()


def _setting(config: pytest.Config, key: str) -> str | list[str] | None:
    given: str | list[str] | None = config.getoption(f"assay_{key}")
    return given or config.getini(f"assay_{key}") or None


def _gate(config: pytest.Config) -> Gate | None:
    adapter, name = _setting(config, "adapter"), _setting(config, "config")
    if adapter is None and name is None:
        return None
    if not isinstance(adapter, str) or not isinstance(name, str):
        raise pytest.UsageError("agent-assay needs both --assay-adapter and --assay-config")
    repeats = str(_setting(config, "repeats") or 1)
    if not repeats.isdigit() or int(repeats) < 1:
        raise pytest.UsageError(f"--assay-repeats must be a whole number >= 1, got {repeats}")
    baseline, witness = _setting(config, "baseline"), _setting(config, "witness")
    metrics = tuple(_setting(config, "metric") or ())
    if metrics and baseline is None:
        raise pytest.UsageError("--assay-metric chooses what the regression gate judges: it "
                                "needs --assay-baseline RUN")
    return Gate(adapter, name, str(_setting(config, "db") or DEFAULT_DB), int(repeats),
                str(baseline) if baseline else None, metrics,
                tuple(_setting(config, "allow_not_run") or ()),
                Path(str(witness)) if witness else None)


def pytest_configure(config: pytest.Config) -> None:
    gate = _gate(config)
    config.stash[GATE] = gate
    spread = config.getoption("numprocesses", None) and config.getoption("dist", "no")
    if gate is not None and spread and spread != "loadgroup" and not hasattr(
            config, "workerinput"):
        raise pytest.UsageError("the agent-assay gate certifies once, in one process: run it "
                                "without -n, or with --dist loadgroup")


@pytest.fixture(scope="session")
def assay(pytestconfig: pytest.Config) -> Gate:
    """The session's certification (`.certification`, `.run_id`, `.comparison`), made on
    first use, shared with the gate's own tests."""
    gate = pytestconfig.stash.get(GATE, None)
    if gate is None:
        pytest.fail("the assay fixture needs --assay-adapter and --assay-config (or "
                    "assay_adapter and assay_config in the ini file)", pytrace=False)
    try:
        _ = gate.certification
    except AssayError as exc:
        pytest.fail(f"error: {exc}", pytrace=False)
    return gate


Check = Callable[[Gate], tuple[str, str]]
"""A gate test: ("passed" | "skipped" | "failed", why)."""


class GateItem(pytest.Item):
    def __init__(self, *, check: Check, gate: Gate, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.check, self.gate = check, gate

    def runtest(self) -> None:
        try:
            status, why = self.check(self.gate)
        except AssayError as exc:
            raise Failed(f"error: {exc}") from exc
        if status == "skipped":
            pytest.skip(why)
        if status == "failed":
            raise Failed(why)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: object = None) -> str:
        if isinstance(excinfo.value, Failed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[str, int | None, str]:
        return "agent-assay", None, self.nodeid


class GateGroup(pytest.Collector):
    """`agent-assay`, and in it `controls` and `regression`: JUnit's class names."""

    def __init__(self, *, checks: dict[str, Check], gate: Gate, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.checks, self.gate = checks, gate

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        for name, check in self.checks.items():
            yield GateItem.from_parent(self, name=name, check=check, gate=self.gate)


def control_check(kind: str) -> Check:
    def check(gate: Gate) -> tuple[str, str]:
        from agent_assay.api import next_step

        found = [o for o in gate.certification.outcomes if o["kind"] == kind]
        if not found:
            return "failed", f"control {kind} never ran on run {gate.run_id}"
        o = found[0]
        said = f"{o['status']}: {o['summary']}"
        if o["status"] == "PASSED":
            return "passed", said
        if o.get("allowed_not_run"):
            return "skipped", f"{said} (allowed)"
        hint = next_step(kind, o["status"], o.get("reason", ""))
        return "failed", with_hint(said, hint)
    return check


HEAD_LINE = 300
"""How much of a long summary leads a failure, so the hint after it stays inside the part of
the message a JUnit report keeps (pytest shortens the attribute to 500 characters)."""


def with_hint(said: str, hint: str | None) -> str:
    """A failed control's message: its summary, then what to do next; a long summary is cut
    on the first line and given whole after the hint."""
    if not hint:
        return said
    if len(said) <= HEAD_LINE:
        return f"{said}\n-> next: {hint}"
    return f"{said[:HEAD_LINE]}...\n-> next: {hint}\n{said}"


def verdict_check(gate: Gate) -> tuple[str, str]:
    verdict = gate.certification.verdict
    said = f"run {gate.run_id} ({gate.adapter}/{gate.config}) is {verdict.statement}"
    if verdict.exit_code:
        return "failed", "\n".join([said, *(f"reason: {r}" for r in verdict.reasons)])
    return "passed", said


def metric_check(name: str) -> Check:
    def check(gate: Gate) -> tuple[str, str]:
        from agent_assay.views.regression_view import gated_line

        compared = gate.comparison
        assert compared is not None and compared.gate is not None
        if compared.gate.refused is not None:
            return "failed", (f"regression gate {compared.gate.word} against baseline "
                              f"{gate.baseline}: {compared.gate.refused}")
        found = [g for g in compared.gate.metrics if g.paired.metric == name]
        if not found:
            return "failed", f"{name} was not gated"
        line = f"{gated_line(found[0], compared.gate.alpha)} (baseline {gate.baseline})"
        return ("passed" if found[0].status in ("held", "improved") else "failed"), line
    return check


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    """Append the gate's tests (before -k and --deselect see the list)."""
    gate = config.stash.get(GATE, None)
    if gate is None:
        return
    from agent_assay.api import control_kinds

    try:
        metrics = gate.gated_metrics() if gate.baseline else ()
    except AssayError as exc:
        raise pytest.UsageError(f"--assay-adapter {gate.adapter}: {exc}") from exc
    # named as a file would be, so JUnit's class names read agent-assay.controls
    root = GateGroup.from_parent(session, name="agent-assay", nodeid="agent-assay", gate=gate,
                                 checks={"verdict": verdict_check})
    groups = [GateGroup.from_parent(root, name="controls", gate=gate,
                                    checks={kind: control_check(kind) for kind in control_kinds()}),
              root]
    if metrics:
        groups.append(GateGroup.from_parent(root, name="regression", gate=gate,
                                            checks={m: metric_check(m) for m in metrics}))
    items.extend(item for group in groups for item in group.collect()
                 if isinstance(item, pytest.Item))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter,
                            config: pytest.Config) -> None:
    gate = config.stash.get(GATE, None)
    if gate is None or not gate.made:
        return
    from agent_assay.api import Certification, ComparisonResult

    terminalreporter.section("agent-assay")
    for key, done in gate.made.items():
        if isinstance(done, AssayError):
            terminalreporter.write_line(f"{key}: error: {done}")
    certified, compared = gate.made.get("certification"), gate.made.get("comparison")
    if isinstance(certified, Certification):
        terminalreporter.write_line(f"run {gate.run_id} ({gate.adapter}/{gate.config}, "
                                    f"{gate.db}): {certified.verdict.statement}")
    if isinstance(compared, ComparisonResult) and compared.gate is not None:
        terminalreporter.write_line(f"against baseline {gate.baseline}: regression gate "
                                    f"{compared.gate.word}")
    for note in gate.notes:
        if note.startswith("witness "):
            terminalreporter.write_line(note)
