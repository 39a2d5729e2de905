"""The HTML report pages (views/html): what they hold, what they refuse to hold, and that
nothing an adapter or an agent wrote becomes live markup on them.

Every page is parsed with the standard library's html.parser; one test also opens the demo
page and the planted page in headless Chromium (tests/support/report_check.py), skipping with the
reason when there is no browser. Pages are rendered once per module and shared.
"""

from __future__ import annotations

import dataclasses
import html
import re
import sys
from collections import Counter
from collections.abc import Iterator, Mapping
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from agent_assay.integrity.admissibility import Admissibility, assess
from agent_assay.integrity.comparability import Comparison, compare_runs
from agent_assay.model import (
    Config,
    Gold,
    Item,
    PublicItem,
    StateAssertion,
    Step,
    Suite,
    ToolCall,
    Trajectory,
)
from agent_assay.scoring.base import ScoreKind, ScoreValue, ScoringContext
from agent_assay.store import Store, open_existing_store, open_store
from agent_assay.version import harness_version
from agent_assay.views.gates import (
    admissibility_lines,
    evidence_line,
    headline_line,
    tampered_lines,
)
from agent_assay.views.html import comparison_page
from agent_assay.views.load import run_page, trajectory_view, trajectory_views
from tests.support import report_check as rc
from tests.support.tamper import tampered_copy
from tests.support.toy import ToyAdapter, toy_items
from tests.support.toyrun import toy_run

ROOT = Path(__file__).resolve().parents[2]
PLANT = '"><script>alert(1)</script><img src=x onerror=alert(2)>'
"""What an adapter or an agent might write, anywhere it can write."""


# ---- reading a page ------------------------------------------------------------------------
class Page(HTMLParser):
    """The facts the tests check, from one parse: elements, ids, links, plots, rows, text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.html = html
        self.body: dict[str, str | None] = {}
        self.tags: Counter[str] = Counter()
        self.ids: Counter[str] = Counter()
        self.hrefs: list[str] = []
        self.handlers: list[tuple[str, str]] = []
        self.plots: list[tuple[str, int]] = []
        self.rows: list[str] = []
        self.first_links: list[str] = []
        self.row_links: list[int] = []
        self.trajectories: dict[str, tuple[str, str]] = {}
        """id -> (data-item, text) of each class="trajectory" element."""
        self.scripts: list[str] = []
        self.text: list[str] = []
        self.order: list[str] = []
        """The ids and plot names in document order."""
        self._verdict_depth = 0
        self._verdict: list[str] = []
        self._figure: list[int] | None = None
        self._svg_depth = 0
        self._items = self._tbody = False
        self._row: list[str] | None = None
        self._section: tuple[str, str, list[str]] | None = None
        self._script: list[str] | None = None
        self.feed(html)
        self.close()

    @property
    def verdict(self) -> str:
        return " ".join("".join(self._verdict).split())

    @property
    def all_text(self) -> str:
        return " ".join("".join(self.text).split())

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags[tag] += 1
        for name, value in attrs:
            if name.startswith("on"):
                self.handlers.append((tag, name))
            if name == "id" and value is not None:
                self.ids[value] += 1
                self.order.append(value)
            if name in ("href", "xlink:href", "src") and value is not None:
                self.hrefs.append(value)
        if tag == "body":
            self.body = a
        if self._verdict_depth or a.get("id") == "verdict":
            self._verdict_depth += 1
        classes = (a.get("class") or "").split()
        if tag == "figure" and "plot" in classes:
            self._figure = [0]
            self.plots.append((a.get("data-plot") or "", 0))
            self.order.append(f"plot:{a.get('data-plot')}")
        if tag == "svg":
            if self._figure is not None and self._svg_depth == 0:
                self._figure[0] += 1
            self._svg_depth += 1
        if tag == "table" and a.get("id") == "items":
            self._items = True
        if self._items and tag == "tbody":
            self._tbody = True
        if self._tbody and tag == "tr" and "data-item" in a:
            self.rows.append(a["data-item"] or "")
            self._row = []
        if self._row is not None and tag == "a":
            self._row.append(a.get("href") or "")
            if "trajectory-link" in classes and len(self.first_links) < len(self.rows):
                self.first_links.append(a.get("href") or "")
        if tag == "section" and "trajectory" in classes:
            self._section = (a.get("id") or "", a.get("data-item") or "", [])
        if tag in ("script", "style"):
            self._script = []

    def handle_endtag(self, tag: str) -> None:
        if self._verdict_depth:
            self._verdict_depth -= 1
        if tag == "svg":
            self._svg_depth -= 1
        if tag == "figure" and self._figure is not None:
            name, _ = self.plots[-1]
            self.plots[-1] = (name, self._figure[0])
            self._figure = None
        if tag == "tr" and self._row is not None:
            self.row_links.append(len(self._row))
            self._row = None
        if tag == "tbody":
            self._tbody = False
        if tag == "table":
            self._items = False
        if tag == "section" and self._section is not None:
            anchor, item, text = self._section
            self.trajectories[anchor] = (item, " ".join("".join(text).split()))
            self._section = None
        if tag in ("script", "style") and self._script is not None:
            if tag == "script":
                self.scripts.append("".join(self._script))
            self._script = None

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._script.append(data)
            return
        if self._svg_depth:
            return
        self.text.append(data)
        if self._verdict_depth:
            self._verdict.append(data)
        if self._section is not None:
            self._section[2].append(data)


def has_word(text: str, word: str) -> bool:
    return re.search(rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])", text) is not None


def plain(line: str) -> str:
    return " ".join(line.removeprefix("!!!").split())


# ---- the stores ----------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Rendered:
    store: Store
    run_id: str
    verdict: Admissibility
    html: str

    @property
    def page(self) -> Page:
        return Page(self.html)


def render(store: Store, run_id: str) -> Rendered:
    run = store.get_run(run_id)
    verdict = assess(store, run)
    return Rendered(store, run_id, verdict, run_page(store, run, verdict))


@pytest.fixture(scope="module")
def demo(demo_db: tuple[Path, str]) -> Iterator[Rendered]:
    """The banking demo run (104 items, k=3, every control, a mutation pass)."""
    db, run_id = demo_db
    store = open_existing_store(str(db))
    yield render(store, run_id)
    store.close()


@pytest.fixture(scope="module")
def toys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, dict[str, str]]]:
    """Uncertified toy runs: good (k=1), wrong_arg (k=2, diverges at turn 1), crashy."""
    store = open_store(str(tmp_path_factory.mktemp("html_toys") / "assay.db"))
    made = {config: toy_run(store, ToyAdapter(), config, repeats=k).run_id
            for config, k in (("good", 1), ("wrong_arg", 2), ("crashy", 1))}
    yield store, made
    store.close()


@pytest.fixture(scope="module")
def tampered(demo_db: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory
             ) -> Iterator[tuple[Store, str]]:
    """A copy of the demo store whose failing scores were rewritten to passes."""
    db, run_id = demo_db
    copy = tampered_copy(db, tmp_path_factory.mktemp("html_tampered") / "tampered.db")
    store = open_existing_store(str(copy))
    yield store, run_id
    store.close()


class Planted:
    """A headline scorer whose name and definition carry markup."""

    name = f"planted{PLANT}$x$"
    version = "1"
    definition = f"1 unless {PLANT}"
    kind: ScoreKind = "binary"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        return ScoreValue(0.0 if trajectory.crashed else 1.0)


class PlantingToy(ToyAdapter):
    """The toy, with markup in every string an adapter or an agent controls: item ids,
    tags, inputs, gold, tool names, arguments, results, errors, a crash, a scorer."""

    name = "plantingtoy"
    facts = dataclasses.replace(
        ToyAdapter.facts, scorers=(Planted(),),
        headline_metrics=(*ToyAdapter.facts.headline_metrics, Planted.name))

    def build_suite(self, source: Path | None = None) -> Suite:
        ids = (f"on-L1{PLANT}", "on-L2 ' & </script> #x", "on-L3", f"off-L4 {PLANT}")
        items = tuple(
            Item(
                item_id=new_id,
                input={**item.input, "note": PLANT},
                gold=Gold(path=(*item.gold.path, ToolCall(f"gold{PLANT}", {PLANT: PLANT})),
                          outcome=item.gold.outcome,
                          assertions=(*item.gold.assertions, StateAssertion(PLANT, PLANT))),
                tags=(f"tag{PLANT}", *item.tags),
            )
            for new_id, item in zip(ids, toy_items(), strict=True)
        )
        return Suite(adapter=self.name, items=items, source="planted")

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        if item.item_id == "on-L3":
            raise RuntimeError(f"crashed {PLANT}")
        done = super().run_item(item, config, seed=seed, repetition=repetition)
        planted = Step(ToolCall(f"tool{PLANT}", {"arg": PLANT, PLANT: 1}), ok=False,
                       result={"echo": PLANT}, error=f"boom {PLANT}")
        return dataclasses.replace(done, steps=(*done.steps, planted),
                                   outcome=f"outcome {PLANT}")


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rendered]:
    store = open_store(str(tmp_path_factory.mktemp("html_planted") / "assay.db"))
    run = toy_run(store, PlantingToy(), "good", repeats=2)
    yield render(store, run.run_id)
    store.close()


def links_land_once(page: Page) -> None:
    """Every id is unique and every in-page link has exactly one target."""
    assert [i for i, n in page.ids.items() if n > 1] == []
    for href in page.hrefs:
        assert href.startswith("#") or href.startswith("data:"), href
        if href.startswith("#"):
            assert page.ids[href[1:]] == 1, href


# ---- the run page --------------------------------------------------------------------------
def test_the_demo_page_says_admissible_before_any_number(demo: Rendered) -> None:
    page = demo.page
    assert page.body == {"data-report": "run", "data-verdict": "ADMISSIBLE"}
    assert has_word(page.verdict, "ADMISSIBLE") and "INADMISSIBLE" not in page.verdict
    assert page.verdict == plain(admissibility_lines(demo.verdict)[0]).replace(" -- ", " ")
    assert evidence_line(demo.verdict.integrity) in page.all_text
    assert page.order.index("verdict") < page.order.index("plot:forest")
    assert page.ids["verdict"] == 1


def test_the_demo_page_draws_each_plot_once_as_inline_svg(demo: Rendered) -> None:
    page = demo.page
    assert page.plots == [("forest", 1), ("passk", 1), ("mutation", 1)]
    assert page.tags["svg"] == 3 and page.tags["img"] == 0 and page.tags["iframe"] == 0
    assert page.tags["link"] == 1 and 'rel="icon" href="data:,"' in demo.html  # no favicon fetch
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", demo.html)
    assert "url(http" not in demo.html and "@import" not in demo.html


def test_the_demo_page_names_the_orders_each_metric_ignored(demo: Rendered) -> None:
    """outcome.match cannot tell a lookup after the action from one before it; the path
    metrics can, so they are not listed for that pair."""
    start = demo.html.index("orders each metric ignored")
    orders = html.unescape(demo.html[start:demo.html.index("</pre>", start)])
    outcome = next(line for line in orders.splitlines() if "outcome.match:" in line)
    assert "get_customer -> get_card" in outcome
    assert "trajectory.exact: get_customer -> get_card" not in orders


def test_the_forest_plot_sets_each_control_beside_the_mean(demo: Rendered) -> None:
    svg = demo.html[demo.html.index('data-plot="forest"'):demo.html.index('data-plot="passk"')]
    for label in ("null agent do_nothing · PASSED", "random agent, 10 seeds · PASSED",
                  "positive control (gold replayed) · PASSED", "trajectory.exact  (binary)"):
        assert label in svg
    assert "0.0000; line at 0.2500" in svg  # the null agent's level, and its band's line
    assert "nothing drawn" not in svg


def test_every_item_has_a_row_and_every_link_lands_on_its_trajectory(demo: Rendered) -> None:
    page, run = demo.page, demo.store.get_run(demo.run_id)
    assert page.rows == list(run.item_ids)
    assert len(page.first_links) == len(run.item_ids)
    assert set(page.row_links) == {1 + run.repeats}  # the id, then every repetition
    for item_id, href in zip(page.rows, page.first_links, strict=True):
        assert page.ids[href[1:]] == 1
        assert page.trajectories[href[1:]][0] == item_id
        assert f"{item_id} · repetition 1 of 3" in page.trajectories[href[1:]][1]
    assert len(page.trajectories) == len(run.item_ids) * run.repeats
    links_land_once(page)


def test_the_batched_views_are_the_views_trajectories_show_builds(
        toys: tuple[Store, dict[str, str]], demo: Rendered) -> None:
    store, made = toys
    for run_id in made.values():
        run = store.get_run(run_id)
        views = trajectory_views(store, run)
        assert len(views) == len(store.trajectories(run_id))
        for (item_id, rep), view in views.items():
            assert view == trajectory_view(store, run_id, item_id, rep)
    run = demo.store.get_run(demo.run_id)
    views = trajectory_views(demo.store, run)
    for item_id in run.item_ids[::25]:
        assert views[(item_id, 2)] == trajectory_view(demo.store, demo.run_id, item_id, 2)


def test_a_trajectory_shows_its_divergence_its_state_and_its_scores(
        toys: tuple[Store, dict[str, str]]) -> None:
    store, made = toys
    page = render(store, made["wrong_arg"]).page
    shown = {item: text for item, text in page.trajectories.values() if "repetition 2" in text}
    text = shown["on-L1"]
    assert "path: 2 proposals against 2 gold calls; first divergence at turn 1" in text
    assert 'look({"lamp": "L2"})' in text and 'look({"lamp": "L1"})' in text
    assert "first divergence" in text and "state: 0 of 1 gold assertions hold" in text
    assert "lamps.L1.on" in text and "does not hold" in text
    assert "trajectory.exact 1.0000" in text and "args.match 0.0000" in text
    assert "1 if the proposed tool names, in order, equal the gold tool names" in page.all_text


def test_a_crashed_trajectory_shows_its_stored_error(toys: tuple[Store, dict[str, str]]) -> None:
    store, made = toys
    page = render(store, made["crashy"]).page
    text = next(t for item, t in page.trajectories.values() if item == "on-L2")
    assert "crashed: RuntimeError: lamp L2 is haunted" in text
    assert page.rows == ["off-L4", "on-L1", "on-L2", "on-L3"]


def test_an_uncertified_run_is_inadmissible_with_every_reason(
        toy_db: tuple[Path, str]) -> None:
    db, run_id = toy_db
    store = open_existing_store(str(db))
    shown = render(store, run_id)
    page = shown.page
    assert page.body["data-verdict"] == "INADMISSIBLE" and has_word(page.verdict, "INADMISSIBLE")
    assert shown.verdict.reasons
    for reason in shown.verdict.reasons:
        assert reason in page.all_text
    for line in admissibility_lines(shown.verdict):
        assert plain(line).split(" -- ")[-1] in page.all_text
    assert "single run; not a measurement" in page.all_text  # k=1, not certified
    store.close()


def test_with_k1_there_is_no_curve_and_missing_controls_are_named(
        toy_db: tuple[Path, str]) -> None:
    db, run_id = toy_db
    store = open_existing_store(str(db))
    page = render(store, run_id).page
    assert [name for name, _ in page.plots] == ["forest"]
    assert "k=1: each item ran once" in page.all_text and "no curve to draw" in page.all_text
    for control in ("null agent", "random agent", "positive control (gold replayed)"):
        assert f"{control}: nothing drawn on every headline metric: never run" in page.all_text
    assert "No mutation pass is stored for this run" in page.all_text
    assert "No control has been run for this run" in page.all_text
    store.close()


def test_a_tampered_store_shows_its_findings_and_no_number(tampered: tuple[Store, str]) -> None:
    store, run_id = tampered
    shown = render(store, run_id)
    page = shown.page
    assert shown.verdict.tampered
    assert page.body["data-verdict"] == "TAMPERED" and has_word(page.verdict, "TAMPERED")
    lines = tampered_lines(store.get_run(run_id), shown.verdict.integrity)
    for line in lines[1:]:
        assert plain(line) in page.all_text
    assert page.plots == [] and page.rows == [] and page.trajectories == {}
    assert page.tags["svg"] == page.tags["table"] == page.tags["figure"] == 0
    assert "items" not in page.ids and "item-filter" not in page.ids
    text = page.all_text.replace(harness_version(), "")
    assert re.search(r"\d\.\d", text) is None  # no score, mean or interval of any kind
    assert "mean" not in text and "pass^" not in text


def test_planted_markup_stays_text(planted: Rendered) -> None:
    page, run = planted.page, planted.store.get_run(planted.run_id)
    assert len(page.scripts) == 1 and "alert" not in page.scripts[0]  # the page's own only
    assert page.handlers == [] and page.tags["img"] == 0
    assert page.rows == list(run.item_ids)
    assert len(page.trajectories) == len(run.item_ids) * run.repeats
    links_land_once(page)
    text = page.all_text
    for planted_text in (f"tag{PLANT}", f"tool{PLANT}", f"boom {PLANT}", f"crashed {PLANT}",
                         f"gold{PLANT}", f"outcome {PLANT}", f"1 unless {PLANT}",
                         Planted.name):
        assert planted_text in text, planted_text
    items = {item for item, _ in page.trajectories.values()}
    assert items == set(run.item_ids)
    for svg in re.findall(r"<svg.*?</svg>", planted.html, flags=re.S):
        assert "<script" not in svg and "<img" not in svg
        assert 'planted"&gt;&lt;script&gt;' in svg or "planted" not in svg
    assert [name for name, _ in page.plots] == ["forest", "passk"]


def test_the_same_store_gives_the_same_bytes(demo: Rendered,
                                             toys: tuple[Store, dict[str, str]]) -> None:
    run = demo.store.get_run(demo.run_id)
    assert run_page(demo.store, run, demo.verdict) == demo.html
    store, made = toys
    comparison = compare_runs(store, made["good"], made["wrong_arg"])
    assert comparison_page(comparison, forced=True) == comparison_page(comparison, forced=True)


# ---- the comparison page -------------------------------------------------------------------
@pytest.fixture(scope="module")
def comparison(toys: tuple[Store, dict[str, str]]) -> Comparison:
    store, made = toys
    return compare_runs(store, made["good"], made["wrong_arg"])


def test_a_refused_comparison_shows_its_mismatches_and_no_difference(
        comparison: Comparison) -> None:
    assert not comparison.sound and comparison.mismatches
    html = comparison_page(comparison, forced=False)
    page = Page(html)
    assert page.body == {"data-report": "compare", "data-verdict": "REFUSED"}
    assert has_word(page.verdict, "REFUSED")
    for mismatch in comparison.mismatches:
        assert f"{mismatch.code}: {mismatch.detail}" in page.all_text
    assert page.plots == [] and "differences" not in page.ids
    assert "B − A" not in page.all_text.replace("B − A, paired by item", "")
    for m in comparison.metrics:
        assert f"{m.difference:+.4f}" not in page.all_text


def test_a_forced_comparison_is_stamped_unsound_everywhere(comparison: Comparison) -> None:
    html = comparison_page(comparison, forced=True)
    page = Page(html)
    assert page.body["data-verdict"] == "UNSOUND" and has_word(page.verdict, "UNSOUND")
    assert page.plots == [("differences", 1)]
    sections = re.findall(r"<h2>(.*?)</h2>", html)
    assert len(sections) == 3
    assert all('class="stamp">UNSOUND COMPARISON<' in s for s in sections)
    rows = re.findall(r"<tr><td>[^<]*</td><td>(binary|fraction|count|measure)</td>.*?</tr>",
                      html)
    assert len(rows) == len(comparison.metrics) > 0
    assert html.count('class="stamp">UNSOUND COMPARISON<') >= len(rows) + len(sections)
    for m in comparison.metrics:
        assert f"{m.difference:+.4f}" in page.all_text
    links_land_once(page)


def test_the_comparison_page_names_differing_headlines_and_why_an_interval_is_missing(
        comparison: Comparison) -> None:
    page = Page(comparison_page(comparison, forced=True))
    assert headline_line(comparison) in page.all_text
    assert any(m.headline for m in comparison.metrics)
    for m in comparison.metrics:
        label = m.metric + (" *" if m.headline else "")
        assert f"<td>{label}</td>" in page.html
        if m.ci is None:
            assert m.no_ci and m.no_ci in page.all_text
    assert any(m.ci is None for m in comparison.metrics)  # the toy has metrics no item moves


def test_a_sound_comparison_is_compared(comparison: Comparison) -> None:
    sound = dataclasses.replace(comparison, mismatches=())
    page = Page(comparison_page(sound, forced=False))
    assert page.body["data-verdict"] == "COMPARED" and has_word(page.verdict, "COMPARED")
    assert page.plots == [("differences", 1)] and "UNSOUND" not in page.all_text


def test_a_comparison_with_a_tampered_run_shows_no_number(tampered: tuple[Store, str]) -> None:
    store, run_id = tampered
    other = next(r.run_id for r in store.list_runs() if r.run_id != run_id)
    comparison = compare_runs(store, run_id, other)
    assert comparison.tampered
    for forced in (False, True):
        page = Page(comparison_page(comparison, forced=forced))
        assert page.body["data-verdict"] == "TAMPERED" and has_word(page.verdict, "TAMPERED")
        assert page.plots == [] and "STORE_TAMPERED" in page.all_text
        assert re.search(r"\d\.\d", page.all_text.replace(harness_version(), "")) is None


# ---- in a real browser ---------------------------------------------------------------------


def test_the_pages_keep_the_browser_contract(demo: Rendered, planted: Rendered,
                                             tmp_path: Path) -> None:
    why: list[str] = []
    browser = rc.ensure_browser(why=why)
    if browser is None:
        reason = f"no headless browser for the report check: {why[0] if why else '?'}"
        print(reason, file=sys.stderr)
        pytest.skip(reason)
    pages: Mapping[str, tuple[Rendered, str]] = {
        "demo.html": (demo, "ADMISSIBLE"), "planted.html": (planted, "INADMISSIBLE")}
    with rc.PageChecker(browser) as checker:
        for name, (shown, verdict) in pages.items():
            path = tmp_path / name
            path.write_text(shown.html, encoding="utf-8")
            items = len(shown.store.get_run(shown.run_id).item_ids)
            check: Any = checker.check(path, expect_items=items, expect_verdict=verdict)
            assert check.findings == [], name
            assert check.rows == items
