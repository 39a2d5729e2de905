"""tests/support/report_check.py in a real headless Chromium: a page that keeps the contract passes
with no finding, and every check goes red on a page with that one defect planted (the
checker's own negative controls). One browser serves the module; the pages are hand-made."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import report_check as rc

ROOT = Path(__file__).resolve().parents[2]
TOOL = ["-m", "tests.support.report_check"]  # run from ROOT


ITEMS = ("item-1", "item-2", "item-10")  # item-1 is in item-10: the filter probe is item-2
PNG_DATA = "data:image/png;base64,iVBORw0KGgo="
SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="240" height="120" '
       'viewBox="0 0 240 120"><rect x="10" y="{y}" width="40" height="{h}" fill="#369"/>'
       '<text x="60" y="60">{name}</text></svg>')
CSS_TARGET = """
  .trajectory { display: none; }
  .trajectory:target { display: block; }
"""
FILTER_JS = """
document.getElementById('item-filter').addEventListener('input', (event) => {
  const q = event.target.value.toLowerCase();
  for (const row of document.querySelectorAll('#items > tbody > tr')) {
    const text = (row.dataset.item + ' ' + row.textContent).toLowerCase();
    row.hidden = q !== '' && !text.includes(q);
  }
});
"""
SCRIPT_TARGET = """
for (const link of document.querySelectorAll('a.trajectory-link')) {
  link.addEventListener('click', () => {
    for (const t of document.querySelectorAll('.trajectory')) t.hidden = true;
    document.getElementById(link.getAttribute('href').slice(1)).hidden = false;
  });
}
"""


def page(*, report: str = "run", verdict: str = "ADMISSIBLE", verdict_text: str | None = None,
         verdict_element: bool = True, plots: tuple[int, ...] = (1, 1), in_plot: str = "",
         head: str = "",
         body_extra: str = "", items: tuple[str, ...] = ITEMS, table: bool = True,
         link_targets: dict[str, str] | None = None,
         trajectory_items: dict[str, str] | None = None, reveal: str = "css",
         filter_js: str = FILTER_JS) -> str:
    """A report page keeping the contract; each argument plants one defect when changed.

    plots: how many svgs each figure.plot holds; in_plot: more html in the last figure;
    reveal: how a trajectory is shown once
    its link is followed: "css" (:target), "script", "never" (hidden for good) or "always"
    (never hidden)."""
    link_targets = link_targets or {}
    trajectory_items = trajectory_items or {}
    style = {"css": CSS_TARGET, "script": "", "never": ".trajectory { display: none; }",
             "always": ""}[reveal]
    hidden = " hidden" if reveal == "script" else ""
    figures = "\n".join(
        f'<figure class="plot" data-plot="plot{n}">'
        + "".join(SVG.format(y=20 + k, h=80 - k, name=f"plot{n}") for k in range(count))
        + (in_plot if n == len(plots) - 1 else "")
        + f"<figcaption>plot {n}</figcaption></figure>"
        for n, count in enumerate(plots))
    rows = "\n".join(
        f'<tr data-item="{item}"><td><a class="trajectory-link" '
        f'href="#{link_targets.get(item, "traj-" + item)}">{item}</a></td>'
        f"<td>{0.5 + n / 10:.2f}</td><td>banking</td></tr>"
        for n, item in enumerate(items))
    items_table = (f'<table id="items"><thead><tr><th>item</th><th>score</th><th>tag</th>'
                   f"</tr></thead><tbody>\n{rows}\n</tbody></table>") if table else ""
    trajectories = "\n".join(
        f'<section class="trajectory" id="traj-{item}" '
        f'data-item="{trajectory_items.get(item, item)}"{hidden}>'
        f"<h2>{item}</h2><ol><li>user: hello</li><li>agent: lookup(account=1)</li></ol>"
        f"<pre>gold diff: - transfer(1, 2)\n+ transfer(1, 3)</pre></section>"
        for item in items)
    shown = verdict if verdict_text is None else verdict_text
    verdict_html = f'<p>Verdict: <strong id="verdict">{shown}</strong></p>' \
        if verdict_element else f"<p>{shown}</p>"
    script = filter_js + (SCRIPT_TARGET if reveal == "script" else "")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>agent-assay report</title>
<style>{style}
  body {{ font-family: sans-serif; margin: 2em; }}
</style>{head}</head>
<body data-report="{report}" data-verdict="{verdict}">
<h1>Run r1</h1>
{verdict_html}
{figures}
<label>Filter <input id="item-filter" type="search"></label>
{items_table}
{trajectories}
{body_extra}
<script>{script}</script>
</body></html>
"""


def kinds(check: Any) -> set[str]:
    return {finding.split(":", 1)[0] for finding in check.findings}


@pytest.fixture(scope="session")
def browser() -> Any:
    why: list[str] = []
    found = rc.ensure_browser(why=why)
    if found is None:
        reason = f"no headless browser for the report check: {why[0] if why else '?'}"
        print(reason, file=sys.stderr)
        pytest.skip(reason)
    return found


@pytest.fixture(scope="module")
def checker(browser: Any) -> Iterator[Any]:
    with rc.PageChecker(browser) as opened:
        yield opened


def write(tmp_path: Path, html: str, name: str = "report.html") -> Path:
    out = tmp_path / name
    out.write_text(html, encoding="utf-8")
    return out


@pytest.mark.parametrize(("report", "verdict", "reveal"), [
    ("run", "ADMISSIBLE", "css"),
    ("run", "INADMISSIBLE", "script"),
    ("compare", "COMPARED", "css"),
])
def test_a_page_keeping_the_contract_has_no_finding(
        checker: Any, tmp_path: Path, report: str, verdict: str, reveal: str) -> None:
    shot = tmp_path / "shots" / "report.png"
    check = checker.check(write(tmp_path, page(report=report, verdict=verdict, reveal=reveal)),
                          expect_items=3, expect_verdict=verdict, screenshot=shot)
    assert check.findings == []
    assert check.ok and (check.plots, check.rows) == (2, 3)
    assert check.screenshot == shot and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(("report", "verdict"), [
    ("run", "TAMPERED"), ("compare", "REFUSED"), ("compare", "UNSOUND"),
])
def test_a_page_with_no_item_table_to_have_passes_without_one(
        checker: Any, tmp_path: Path, report: str, verdict: str) -> None:
    bare = page(report=report, verdict=verdict, table=False, items=())
    check = checker.check(write(tmp_path, bare), expect_verdict=verdict)
    assert check.findings == [] and check.rows == 0


def test_a_tampered_page_with_an_item_table_is_red(checker: Any, tmp_path: Path) -> None:
    check = checker.check(write(tmp_path, page(verdict="TAMPERED")), expect_verdict="TAMPERED")
    assert check.findings == ["items: a TAMPERED page holds a per-item table"]


def test_the_screenshot_is_the_whole_page(checker: Any, tmp_path: Path) -> None:
    tall = page(body_extra='<div style="height: 5000px">the end of a long report</div>')
    shot = tmp_path / "tall.png"
    check = checker.check(write(tmp_path, tall), screenshot=shot)
    assert check.ok, check.findings
    header = shot.read_bytes()[16:24]  # the PNG's IHDR: width, height
    width, height = int.from_bytes(header[:4]), int.from_bytes(header[4:])
    assert width == 1400 and height > 5000


# Every check, red on a page with its one defect (and on nothing else).
DEFECTS: dict[str, tuple[dict[str, Any], dict[str, Any], set[str], str]] = {
    # name: (page arguments, check arguments, finding kinds, text in a finding)
    "another verdict": ({"verdict": "INADMISSIBLE"}, {"expect_verdict": "ADMISSIBLE"},
                        {"verdict"}, "says INADMISSIBLE, expected ADMISSIBLE"),
    "#verdict disagrees": ({"verdict_text": "INADMISSIBLE"}, {}, {"verdict"},
                           "without ADMISSIBLE"),
    "no #verdict": ({"verdict_element": False}, {}, {"verdict"}, "no #verdict"),
    "unknown verdict": ({"verdict": "FINE"}, {}, {"verdict"}, "'FINE', not one of"),
    "bad data-report": ({"report": "summary"}, {}, {"report"}, "not run or compare"),
    "two svgs": ({"plots": (1, 2)}, {}, {"plot"}, "'plot1' holds 2 inline <svg>"),
    "no svg": ({"plots": (0, 1)}, {}, {"plot"}, "'plot0' holds 0 inline <svg>"),
    "img in a plot": ({"plots": (1, 0), "in_plot": f'<img src="{PNG_DATA}" alt="">'}, {},
                      {"plot"}, "'plot1' holds <img>, not an inline <svg>"),
    "external img": ({"body_extra": '<img src="http://example.com/plot.png" alt="">'}, {},
                     {"external", "network"}, "http://example.com/plot.png"),
    "external stylesheet": (
        {"head": '<link rel="stylesheet" href="https://cdn.example.com/r.css">'}, {},
        {"external", "network"}, "<link href> points outside the page"),
    "external script": (
        {"head": '<script src="https://cdn.example.com/r.js"></script>'}, {},
        {"external", "network"}, "<script src> points outside the page"),
    "a sibling file": ({"body_extra": '<img src="plot.png" alt="">'}, {},
                       {"external", "network"}, "plot.png"),
    "a fetch": ({"body_extra": '<script>fetch("https://example.org/beacon")'
                               ".catch(() => {});</script>"}, {}, {"network"},
                "requested https://example.org/beacon"),
    "console.error": ({"body_extra": '<script>console.error("x")</script>'}, {}, {"console"},
                      'SEVERE'),
    "console.warn": ({"body_extra": '<script>console.warn("careful")</script>'}, {},
                     {"console"}, "WARNING"),
    "uncaught exception": ({"body_extra": '<script>throw new Error("boom")</script>'}, {},
                           {"console"}, "boom"),
    "one row too many": ({"items": (*ITEMS, "item-4")}, {"expect_items": 3}, {"items"},
                         "4 item rows, expected 3"),
    "no items table": ({"table": False}, {"expect_items": 3}, {"items"}, "no <table"),
    "an item twice": ({"items": (*ITEMS, "item-2")}, {}, {"items"}, "more than one row"),
    "link to a missing target": ({"link_targets": {"item-1": "traj-nowhere"}}, {},
                                 {"trajectory"}, "item-1 (#traj-nowhere)"),
    "trajectory of another item": ({"trajectory_items": {"item-1": "item-2"}}, {},
                                   {"trajectory"}, "item-1 (shows 'item-2')"),
    "trajectory never shown": ({"reveal": "never"}, {}, {"trajectory"},
                               "does not show #traj-item-1"),
    "trajectory always shown": ({"reveal": "always"}, {}, {"trajectory"},
                                "visible before their link is followed: item-1, item-2,"),
    "a filter that does nothing": ({"filter_js": ""}, {}, {"filter"},
                                   "typing 'item-2' leaves 3 of 3 rows visible"),
}


@pytest.mark.parametrize("defect", list(DEFECTS))
def test_each_planted_defect_is_found(checker: Any, tmp_path: Path, defect: str) -> None:
    arguments, expect, expected_kinds, text = DEFECTS[defect]
    (tmp_path / "plot.png").write_bytes(b"\x89PNG\r\n\x1a\n")  # a file beside the page
    check = checker.check(write(tmp_path, page(**arguments)), **expect)
    assert not check.ok
    assert kinds(check) == expected_kinds, check.findings
    assert any(text in finding for finding in check.findings), check.findings


def test_a_missing_file_is_a_finding(checker: Any, tmp_path: Path) -> None:
    check = checker.check(tmp_path / "absent.html")
    assert kinds(check) == {"page"}


def test_the_cli_prints_findings_and_exits_by_them(browser: Any, tmp_path: Path) -> None:
    good = write(tmp_path, page(), "good.html")
    bad = write(tmp_path, page(verdict="INADMISSIBLE"), "bad.html")
    (tmp_path / "pages.json").write_text(json.dumps([
        {"file": "good.html", "items": 3, "verdict": "ADMISSIBLE", "screenshot": "good.png"},
        {"file": "bad.html", "items": 3, "verdict": "ADMISSIBLE"},
    ]))
    ran = subprocess.run([sys.executable, *TOOL, "--manifest", str(tmp_path / "pages.json")],
                         capture_output=True, text=True, check=False, cwd=ROOT)
    lines = ran.stdout.splitlines()
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert lines[0].startswith(f"ok {good} (2 plots, 3 item rows, screenshot ")
    assert (tmp_path / "good.png").is_file()
    assert lines[1:] == [f"{bad}: verdict: the page says INADMISSIBLE, expected ADMISSIBLE",
                         lines[2], "FAILED: 1 of 2 pages"]
    assert lines[2].startswith(f"FAILED {bad}: 1 finding (2 plots, 3 item rows, ")

    ran = subprocess.run([sys.executable, *TOOL, str(good), "--items", "3",
                          "--verdict", "ADMISSIBLE"], capture_output=True, text=True,
                         check=False, cwd=ROOT)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.splitlines() == [ran.stdout.splitlines()[-1]]
    assert ran.stdout.startswith(f"ok {good} (2 plots, 3 item rows, ")


def test_check_page_opens_a_browser_of_its_own(browser: Any, tmp_path: Path) -> None:
    check = rc.check_page(write(tmp_path, page()), expect_items=2, expect_verdict="ADMISSIBLE",
                          screenshot=None, browser=browser)
    assert check.findings == ["items: 3 item rows, expected 2"]
    assert check.seconds > 0


# -- without a browser ---------------------------------------------------------------------


def test_no_browser_is_exit_2_with_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    def absent(*, why: list[str] | None = None) -> None:
        assert why is not None
        why.append("no chromium here")

    monkeypatch.setattr(rc, "ensure_browser", absent)
    assert rc.main([str(tmp_path / "r.html")]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err == "report_check: no chromium here\n"


@pytest.mark.parametrize(("manifest", "message"), [
    ("{}", "non-empty JSON list"),
    ("[]", "non-empty JSON list"),
    ('[{"items": 3}]', "entry 1: file must be a path"),
    ('[{"file": "a.html", "items": true}]', "items must be a count"),
    ('[{"file": "a.html", "verdict": "OK"}]', "verdict must be one of"),
    ('[{"file": "a.html", "pages": 1}]', "unknown keys pages"),
    ("not json", "cannot read it as JSON"),
])
def test_a_bad_manifest_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  manifest: str, message: str) -> None:
    (tmp_path / "pages.json").write_text(manifest)
    assert rc.main(["--manifest", str(tmp_path / "pages.json")]) == 2
    assert message in capsys.readouterr().err


class FakeApt:
    """apt-get as ensure_browser sees it: the calls made, and which of them fail."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, fail: set[int],
                 installs_browser: bool = True) -> None:
        self.calls: list[str] = []
        self.fail = fail
        self.installed = False
        self.installs_browser = installs_browser
        monkeypatch.setattr(rc, "_apt", self)
        monkeypatch.setattr(rc, "_apt_get", lambda: "/usr/bin/apt-get")
        monkeypatch.setattr(rc, "_is_root", lambda: True)
        monkeypatch.setattr(rc, "find_browser", self.find)

    def __call__(self, args: list[str]) -> tuple[int, str]:
        self.calls.append(args[0])
        if len(self.calls) in self.fail:
            return 100, "E: Unable to locate package chromium"
        if args[0] == "install":
            assert args == ["install", "-y", "--no-install-recommends", "chromium",
                            "chromium-driver"]
            self.installed = self.installs_browser
        return 0, ""

    def find(self) -> Any:
        return rc.Browser("/usr/bin/chromium", "/usr/bin/chromedriver") if self.installed \
            else None


def test_ensure_browser_installs_without_update_when_it_can(
        monkeypatch: pytest.MonkeyPatch) -> None:
    apt = FakeApt(monkeypatch, fail=set())
    assert rc.ensure_browser() is not None and apt.calls == ["install"]


def test_ensure_browser_updates_only_after_a_failed_install(
        monkeypatch: pytest.MonkeyPatch) -> None:
    apt = FakeApt(monkeypatch, fail={1})
    assert rc.ensure_browser() is not None and apt.calls == ["install", "update", "install"]


@pytest.mark.parametrize(("fail", "installs", "calls", "message"), [
    ({1, 2}, True, ["install", "update"], "apt-get update failed: E: Unable"),
    ({1, 3}, True, ["install", "update", "install"], "failed after apt-get update"),
    (set(), False, ["install"], "but still no chromium"),
])
def test_ensure_browser_says_why_it_failed(monkeypatch: pytest.MonkeyPatch, fail: set[int],
                                           installs: bool, calls: list[str],
                                           message: str) -> None:
    apt = FakeApt(monkeypatch, fail=fail, installs_browser=installs)
    why: list[str] = []
    assert rc.ensure_browser(why=why) is None
    assert apt.calls == calls and len(why) == 1 and message in why[0]


@pytest.mark.parametrize(("apt_get", "root", "message"), [
    (None, True, "no apt-get to install them"),
    ("/usr/bin/apt-get", False, "not root"),
])
def test_ensure_browser_does_not_try_what_it_cannot(
        monkeypatch: pytest.MonkeyPatch, apt_get: str | None, root: bool,
        message: str) -> None:
    monkeypatch.setattr(rc, "find_browser", lambda: None)
    monkeypatch.setattr(rc, "_apt_get", lambda: apt_get)
    monkeypatch.setattr(rc, "_is_root", lambda: root)
    monkeypatch.setattr(rc, "_apt", lambda args: pytest.fail("apt-get must not run"))
    why: list[str] = []
    assert rc.ensure_browser(why=why) is None
    assert message in why[0]


def test_find_browser_falls_back_to_the_debian_paths(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    chromium, driver = tmp_path / "chromium", tmp_path / "chromedriver"
    for exe in (chromium, driver):
        exe.write_text("#!/bin/sh\n")
        exe.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(rc, "DEBIAN_CHROMIUM", (str(tmp_path / "nope"), str(chromium)))
    monkeypatch.setattr(rc, "DEBIAN_CHROMEDRIVER", (str(driver),))
    assert rc.find_browser() == rc.Browser(str(chromium), str(driver))
    driver.unlink()
    assert rc.find_browser() is None
