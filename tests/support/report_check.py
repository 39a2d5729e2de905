"""Check a generated HTML report in a real headless Chromium, and go red on a broken page.

`agent-assay report RUN --html FILE` and `agent-assay compare A B --html FILE` write one
self-contained page. This tool opens such a page by its file:// URL in headless Chromium
(driven by selenium through the system's chromedriver; selenium-manager never runs, so
nothing is downloaded), looks at it, clicks it, types into it, and lists what is wrong.

The page contract (what a report page must be; every point is checked)
-----------------------------------------------------------------------
- `<body data-report="run|compare" data-verdict="VERDICT">`, VERDICT one of ADMISSIBLE,
  INADMISSIBLE, TAMPERED, REFUSED, UNSOUND, COMPARED (COMPARED only on a compare page),
  and one visible element `#verdict` whose visible text contains that verdict as a word
  (so "INADMISSIBLE" does not count as "ADMISSIBLE").
- Every plot is `<figure class="plot" data-plot="NAME">` holding exactly one inline `<svg>`
  (with something drawn in it): no `<img>`, `<object>`, `<embed>` or `<iframe>` in a plot.
- Nothing is loaded from outside the page: no `<img>`, `<link rel=stylesheet|icon|preload>`,
  `<script src>`, `<iframe>`, `<source>`, `<video>`/`<audio>`, svg `<image>`/`<use>` whose
  URL is not a data:, blob: or about: URL or a #fragment of the page itself; and while the
  page is open it makes no request (fetch, CSS url(), anything) to a URL other than its own
  file:// URL or a data:/about:/blob: URL. External requests are blocked, then reported.
- A run page that is not TAMPERED has the per-item table `<table id="items">` (a
  TAMPERED page must not have one: no number shows for a tampered run; a comparison page
  needs none, and the item and filter checks below do not apply to either); each item is
  one `<tbody>` row
  `<tr data-item="ITEM_ID">` (item ids unique) whose first `<a class="trajectory-link"
  href="#ANCHOR">` points at an element of the same page with class `trajectory` and
  `data-item="ITEM_ID"` showing that item's trajectory (turn by turn, gold diff). That
  element is hidden until its link is followed (CSS `:target` or a small inline script)
  and visible, with some text, once it has been.
- `<input id="item-filter">` hides the rows that do not match the typed text, live (on
  input). With the filter empty every row is visible; typing an item id leaves that row
  visible and hides every row that matches the text nowhere (neither in its data-item nor
  in its text); typing text no row contains hides every row.
- The console stays clean: no message of level SEVERE (errors, uncaught exceptions,
  failed loads) or WARNING.

Findings are one line each, `KIND: what is wrong`, KIND one of: page, report, verdict,
plot, external, items, trajectory, filter, console, network.

Usage:
  python -m tests.support.report_check FILE [FILE ...] [--items N] [--verdict WORD]
                               [--screenshot OUT.png]
  python -m tests.support.report_check --manifest reports/html/pages.json

The manifest is a JSON list of {"file", "items", "verdict", "screenshot", "top"} objects
("top": a PNG of the first 1400x2000 screen; only "file" required; paths relative to the
manifest's own directory). One line per finding, then `ok` or `FAILED` per page; exit 0
when every page is ok, 1 when one is not, 2 (with a one-line reason) when no browser can
be found or installed, or the arguments or the manifest are unusable. The screenshot is of
the whole page (CDP `Page.captureScreenshot` beyond the viewport) at a fixed 1400x2000
viewport, taken once the page has loaded and before anything is clicked or typed.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urldefrag

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver
    from selenium.webdriver.remote.webelement import WebElement

VERDICTS = ("ADMISSIBLE", "INADMISSIBLE", "TAMPERED", "REFUSED", "UNSOUND", "COMPARED")
REPORT_KINDS = ("run", "compare")
VIEWPORT = (1400, 2000)
MAX_SCREENSHOT_HEIGHT = 30_000  # pixels; a longer page is cut there
PAGE_LOAD_TIMEOUT = 30.0  # seconds
SETTLE = 1.0  # seconds a click or a keystroke may take to show its effect
NO_MATCH_PROBE = "zq-no-such-item-7f3x"

CHROMIUM_NAMES = ("chromium", "chromium-browser")
CHROMEDRIVER_NAMES = ("chromedriver",)
DEBIAN_CHROMIUM = ("/usr/bin/chromium", "/usr/lib/chromium/chromium")
DEBIAN_CHROMEDRIVER = ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")
APT_PACKAGES = ("chromium", "chromium-driver")
APT_TIMEOUT = 1800.0  # seconds, for one apt-get call

CHROMIUM_ARGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    f"--window-size={VIEWPORT[0]},{VIEWPORT[1]}",
    "--force-device-scale-factor=1",
    "--hide-scrollbars",
    "--font-render-hinting=none",
    "--lang=en-US",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-sync",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--mute-audio",
)
# Requests the page must not make are blocked (and still logged, so they are reported).
BLOCKED_URLS = ("http://*", "https://*", "ws://*", "wss://*", "ftp://*")


@dataclass(frozen=True)
class Browser:
    """A headless-capable Chromium and the chromedriver that drives it."""

    chromium: str
    chromedriver: str


class BrowserError(RuntimeError):
    """The browser could not be started or driven (not a finding about the page)."""


@dataclass
class PageCheck:
    """What checking one page found; `ok` when it found nothing."""

    path: Path
    findings: list[str] = field(default_factory=list)
    plots: int = 0
    rows: int = 0
    screenshot: Path | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.findings

    def summary(self) -> str:
        parts = [f"{self.plots} plot{'s' * (self.plots != 1)}",
                 f"{self.rows} item row{'s' * (self.rows != 1)}"]
        if self.screenshot is not None:
            parts.append(f"screenshot {self.screenshot}")
        parts.append(f"{self.seconds:.2f} s")
        if self.ok:
            return f"ok {self.path} ({', '.join(parts)})"
        count = f"{len(self.findings)} finding" + "s" * (len(self.findings) != 1)
        return f"FAILED {self.path}: {count} ({', '.join(parts)})"


# -- finding and installing the browser ---------------------------------------------------


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _first(names: Sequence[str], fixed: Sequence[str]) -> str | None:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return next((path for path in fixed if _executable(path)), None)


def find_browser() -> Browser | None:
    """Chromium and chromedriver on PATH, else at the Debian paths; None if either lacks."""
    chromium = _first(CHROMIUM_NAMES, DEBIAN_CHROMIUM)
    driver = _first(CHROMEDRIVER_NAMES, DEBIAN_CHROMEDRIVER)
    if chromium is None or driver is None:
        return None
    return Browser(chromium=chromium, chromedriver=driver)


def _apt_get() -> str | None:
    return shutil.which("apt-get")


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _apt(args: Sequence[str]) -> tuple[int, str]:
    """Run apt-get ARGS non-interactively; (exit code, the end of its output)."""
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    command = ["apt-get", "-o", "DPkg::Lock::Timeout=300", *args]
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True,
                              timeout=APT_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return 1, str(error)
    output = (done.stdout + done.stderr).strip().splitlines()
    return done.returncode, " / ".join(output[-3:])


def _missing() -> str:
    return (f"no chromium and chromedriver (looked on PATH for {', '.join(CHROMIUM_NAMES)}"
            f" and {', '.join(CHROMEDRIVER_NAMES)}, and at {', '.join(DEBIAN_CHROMIUM)},"
            f" {', '.join(DEBIAN_CHROMEDRIVER)})")


def ensure_browser(*, why: list[str] | None = None) -> Browser | None:
    """The browser, installed first with apt-get when it is absent and we may (root, apt).

    Runs `apt-get install -y --no-install-recommends chromium chromium-driver`, and
    `apt-get update` then the install again only if the install failed without it. Returns
    None when there is still no browser; the reason is appended to WHY when given.
    """

    def fail(reason: str) -> None:
        if why is not None:
            why.append(reason)

    found = find_browser()
    if found is not None:
        return found
    if _apt_get() is None:
        fail(f"{_missing()}, and no apt-get to install them")
        return None
    if not _is_root():
        fail(f"{_missing()}, and not root, so apt-get cannot install them")
        return None
    install = ["install", "-y", "--no-install-recommends", *APT_PACKAGES]
    print(f"report_check: installing {' '.join(APT_PACKAGES)} with apt-get", file=sys.stderr)
    code, output = _apt(install)
    if code != 0:
        code, output = _apt(["update"])
        if code != 0:
            fail(f"{_missing()}; apt-get install failed and apt-get update failed: {output}")
            return None
        code, output = _apt(install)
        if code != 0:
            fail(f"{_missing()}; apt-get install failed after apt-get update: {output}")
            return None
    found = find_browser()
    if found is None:
        fail(f"apt-get installed {' '.join(APT_PACKAGES)} but still {_missing()}")
    return found


# -- driving it ---------------------------------------------------------------------------

# One round trip: everything about the page that needs no interaction.
_INSPECT = r"""
const pageUrl = location.href.split('#')[0];
function outside(raw) {
  if (raw === null || raw === undefined) return null;
  const text = String(raw).trim();
  if (text === '' || text.startsWith('#')) return null;
  let url;
  try { url = new URL(text, document.baseURI); } catch (e) { return text; }
  if (['data:', 'blob:', 'about:', 'javascript:'].includes(url.protocol)) return null;
  return url.href.split('#')[0] === pageUrl ? null : url.href;
}
function firstOfSrcset(raw) {
  if (!raw) return [];
  return raw.split(',').map(part => part.trim().split(/\s+/)[0]).filter(Boolean);
}
const external = [];
function note(el, attr, raw) {
  const url = outside(raw);
  if (url !== null) external.push({tag: el.tagName.toLowerCase(), attr: attr, url: url});
}
const loaders = [
  ['img', ['src']], ['img', ['srcset']], ['source', ['src']], ['source', ['srcset']],
  ['script', ['src']], ['iframe', ['src']], ['frame', ['src']], ['embed', ['src']],
  ['object', ['data']], ['video', ['src', 'poster']], ['audio', ['src']], ['track', ['src']],
  ['input', ['src']], ['image', ['href', 'xlink:href']], ['use', ['href', 'xlink:href']],
  ['feImage', ['href', 'xlink:href']],
];
for (const [tag, attrs] of loaders) {
  for (const el of document.getElementsByTagName(tag)) {
    for (const attr of attrs) {
      if (!el.hasAttribute(attr)) continue;
      const raw = el.getAttribute(attr);
      if (attr === 'srcset') { for (const u of firstOfSrcset(raw)) note(el, attr, u); }
      else note(el, attr, raw);
    }
  }
}
const loadingRels = ['stylesheet', 'icon', 'preload', 'prefetch', 'modulepreload',
                     'apple-touch-icon', 'manifest', 'import'];
for (const el of document.querySelectorAll('link[href]')) {
  const rels = (el.getAttribute('rel') || '').toLowerCase().split(/\s+/);
  if (rels.some(r => loadingRels.includes(r))) note(el, 'href', el.getAttribute('href'));
}
const body = document.body;
const plots = [...document.querySelectorAll('figure.plot')].map(f => {
  const svgs = [...f.querySelectorAll('svg')].filter(s => !s.parentElement.closest('svg'));
  return {
    name: f.getAttribute('data-plot'),
    svgs: svgs.length,
    drawn: svgs.length === 1 && svgs[0].children.length > 0,
    embeds: [...f.querySelectorAll('img, object, embed, iframe, picture, canvas')]
      .map(e => e.tagName.toLowerCase()),
  };
});
const table = document.querySelector('table#items');
const rows = table ? [...table.querySelectorAll(':scope > tbody > tr[data-item]')] : [];
const items = rows.map(r => {
  const link = r.querySelector('a.trajectory-link');
  const href = link ? link.getAttribute('href') : null;
  let anchor = null, target = null;
  if (href !== null && href.startsWith('#') && href.length > 1) {
    try { anchor = decodeURIComponent(href.slice(1)); } catch (e) { anchor = href.slice(1); }
    target = document.getElementById(anchor);
  }
  return {
    item: r.getAttribute('data-item'),
    text: r.textContent,
    href: href,
    anchor: anchor,
    found: target !== null,
    trajectory: target !== null && target.classList.contains('trajectory'),
    target_item: target === null ? null : target.getAttribute('data-item'),
    target_visible: target !== null && (target.checkVisibility
      ? target.checkVisibility({visibilityProperty: true, opacityProperty: true})
      : target.getClientRects().length > 0),
  };
});
const filter = document.getElementById('item-filter');
return {
  has_body: body !== null,
  report: body ? body.getAttribute('data-report') : null,
  verdict: body ? body.getAttribute('data-verdict') : null,
  verdict_elements: document.querySelectorAll('#verdict').length,
  plots: plots,
  external: external,
  table: table !== null,
  items: items,
  filter: filter === null ? null : filter.tagName.toLowerCase(),
};
"""

_ROWS_VISIBLE = r"""
const rows = [...document.querySelectorAll('table#items > tbody > tr[data-item]')];
return rows.map(r => r.checkVisibility
  ? r.checkVisibility({visibilityProperty: true, opacityProperty: true})
  : r.getClientRects().length > 0);
"""

_SETTLE_FRAMES = r"""
const done = arguments[arguments.length - 1];
const frames = () => requestAnimationFrame(() => requestAnimationFrame(() => done(true)));
if (document.fonts && document.fonts.ready) document.fonts.ready.then(frames, frames);
else frames();
"""


def _short(items: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _first_line(error: BaseException) -> str:
    text = str(getattr(error, "msg", None) or error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _same_file(url: str, page_url: str) -> bool:
    return unquote(urldefrag(url)[0]) == unquote(page_url)


def _allowed_request(url: str, page_url: str) -> bool:
    return url.split(":", 1)[0].lower() in ("data", "about", "blob") or _same_file(
        url, page_url)


def _has_word(text: str, word: str) -> bool:
    return re.search(rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])", text, re.I) is not None


def _wait(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while True:
        if condition():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)


class PageChecker:
    """One headless Chromium that checks pages one after another (close it when done)."""

    def __init__(self, browser: Browser, *, settle: float = SETTLE) -> None:
        try:
            from selenium import webdriver
            from selenium.common.exceptions import WebDriverException
            from selenium.webdriver.chrome.service import Service
        except ImportError as error:
            raise BrowserError(f"selenium is not importable ({error}); install the dev "
                               "extra: pip install -e '.[dev]'") from error
        self.browser = browser
        self.settle = settle
        options = webdriver.ChromeOptions()
        options.binary_location = browser.chromium
        for argument in CHROMIUM_ARGS:
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        # An explicit driver path: selenium-manager is never asked to find or fetch one.
        service = Service(executable_path=browser.chromedriver)
        try:
            self.driver: WebDriver = webdriver.Chrome(service=service, options=options)
        except WebDriverException as error:
            raise BrowserError(f"cannot start {browser.chromium} through "
                               f"{browser.chromedriver}: {_first_line(error)}") from error
        try:
            self.driver.set_page_load_timeout(PAGE_LOAD_TIMEOUT)
            self.driver.set_script_timeout(PAGE_LOAD_TIMEOUT)
            self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": VIEWPORT[0], "height": VIEWPORT[1], "deviceScaleFactor": 1,
                "mobile": False})
        except WebDriverException as error:
            self.close()
            raise BrowserError(f"cannot set up the browser: {_first_line(error)}") from error
        # Blocking only keeps the check off the network: a request is reported either way.
        with contextlib.suppress(WebDriverException):
            self.driver.execute_cdp_cmd("Network.enable", {})
            self.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": list(BLOCKED_URLS)})

    def __enter__(self) -> PageChecker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        driver = getattr(self, "driver", None)
        if driver is not None:
            self.driver = None  # type: ignore[assignment]
            with contextlib.suppress(Exception):  # a dead browser needs no quitting
                driver.quit()

    # -- one page --------------------------------------------------------------------------

    def check(self, path: Path | str, *, expect_items: int | None = None,
              expect_verdict: str | None = None,
              screenshot: Path | None = None, top: Path | None = None) -> PageCheck:
        """Open PATH by its file:// URL and list what is wrong with it; `screenshot` gets
        the whole page, `top` what the first screen shows (the picture for a README)."""
        from selenium.common.exceptions import TimeoutException, WebDriverException

        if expect_verdict is not None and expect_verdict not in VERDICTS:
            raise ValueError(f"expect_verdict {expect_verdict!r} is not one of "
                             f"{', '.join(VERDICTS)}")
        started = time.monotonic()
        page = Path(path)
        result = PageCheck(path=page)
        if not page.is_file():
            result.findings.append(f"page: no such file {page}")
            return result
        page_url = page.resolve().as_uri()
        driver = self.driver
        try:
            driver.get("about:blank")
            self._log("browser")  # drop whatever the last page left behind
            self._log("performance")
            try:
                driver.get(page_url)
            except TimeoutException:
                result.findings.append(
                    f"page: did not finish loading within {PAGE_LOAD_TIMEOUT:.0f} s")
            driver.execute_async_script(_SETTLE_FRAMES)
            facts: dict[str, Any] = driver.execute_script(_INSPECT)
            if screenshot is not None:
                result.screenshot = self._screenshot(screenshot)
            if top is not None:
                top.parent.mkdir(parents=True, exist_ok=True)
                driver.save_screenshot(str(top))
            self._static(facts, result, expect_items, expect_verdict)
            if facts["items"]:
                self._trajectory(facts["items"][0], result)
            if facts["table"] and facts["items"]:
                self._filter(facts, result)
            self._console(result)
            self._network(page_url, result)
        except WebDriverException as error:
            result.findings.append(f"page: the browser failed on it: {_first_line(error)}")
        result.seconds = time.monotonic() - started
        return result

    def _screenshot(self, out: Path) -> Path:
        out.parent.mkdir(parents=True, exist_ok=True)
        driver = self.driver
        try:
            metrics = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            width = max(int(size["width"]), VIEWPORT[0])
            height = min(max(int(size["height"]), 1), MAX_SCREENSHOT_HEIGHT)
            shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}})
            out.write_bytes(base64.b64decode(shot["data"]))
        except Exception:  # no CDP: the window is the next best picture
            driver.save_screenshot(str(out))
        return out

    def _static(self, facts: dict[str, Any], result: PageCheck, expect_items: int | None,
                expect_verdict: str | None) -> None:
        found = result.findings
        if not facts["has_body"]:
            found.append("report: the page has no <body>")
        report, verdict = facts["report"], facts["verdict"]
        if report not in REPORT_KINDS:
            found.append(f"report: <body data-report> is {report!r}, not run or compare")
        if verdict not in VERDICTS:
            found.append(f"verdict: <body data-verdict> is {verdict!r}, not one of "
                         f"{', '.join(VERDICTS)}")
        elif verdict == "COMPARED" and report == "run":
            found.append("verdict: a run report says COMPARED")
        if expect_verdict is not None and verdict != expect_verdict:
            found.append(f"verdict: the page says {verdict}, expected {expect_verdict}")
        self._verdict_element(facts, verdict, expect_verdict, found)

        plots = facts["plots"]
        result.plots = len(plots)
        for index, plot in enumerate(plots, 1):
            name = plot["name"]
            label = f"plot {name!r}" if name else f"plot {index}"
            if not name:
                found.append(f"plot: figure.plot {index} has no data-plot name")
            if plot["svgs"] != 1:
                found.append(f"plot: {label} holds {plot['svgs']} inline <svg>, "
                             "expected exactly one")
            elif not plot["drawn"]:
                found.append(f"plot: {label} has an empty <svg>")
            if plot["embeds"]:
                found.append(f"plot: {label} holds <{'>, <'.join(plot['embeds'])}>, "
                             "not an inline <svg>")
        for ref in facts["external"]:
            found.append(f"external: <{ref['tag']} {ref['attr']}> points outside the page: "
                         f"{ref['url']}")

        items = facts["items"]
        result.rows = len(items)
        if verdict == "TAMPERED":
            # no number may show for a tampered run: no per-item table at all
            if facts["table"]:
                found.append("items: a TAMPERED page holds a per-item table")
            return
        if report != "run":  # a comparison page has no per-item table to check
            return
        if not facts["table"]:
            found.append("items: no <table id=\"items\">")
        elif expect_items is not None and len(items) != expect_items:
            found.append(f"items: {len(items)} item rows, expected {expect_items}")
        ids = [item["item"] for item in items]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            found.append(f"items: item ids on more than one row: {_short(twice)}")
        if facts["filter"] != "input":
            found.append("filter: no <input id=\"item-filter\">")
        self._links(items, found)

    def _verdict_element(self, facts: dict[str, Any], verdict: str | None,
                         expect_verdict: str | None, found: list[str]) -> None:
        from selenium.webdriver.common.by import By

        if facts["verdict_elements"] == 0:
            found.append("verdict: no #verdict element")
            return
        if facts["verdict_elements"] > 1:
            found.append(f"verdict: {facts['verdict_elements']} elements with id verdict")
        element = self.driver.find_element(By.ID, "verdict")
        if not element.is_displayed():
            found.append("verdict: #verdict is not visible")
            return
        text = " ".join(element.text.split())
        # The word the body names; the expected one only when the body names none (a body
        # naming another verdict than expected is already a finding).
        word = verdict if verdict in VERDICTS else expect_verdict
        if word is not None and not _has_word(text, word):
            found.append(f"verdict: #verdict reads {text[:80]!r}, without {word}")

    @staticmethod
    def _links(items: list[dict[str, Any]], found: list[str]) -> None:
        no_link = [i["item"] for i in items if i["href"] is None]
        outside = [i["item"] for i in items if i["href"] is not None and i["anchor"] is None]
        missing = [f"{i['item']} (#{i['anchor']})" for i in items
                   if i["anchor"] is not None and not i["found"]]
        not_traj = [i["item"] for i in items if i["found"] and not i["trajectory"]]
        wrong = [f"{i['item']} (shows {i['target_item']!r})" for i in items
                 if i["found"] and i["target_item"] != i["item"]]
        shown = [i["item"] for i in items if i["target_visible"]]
        if no_link:
            found.append(f"trajectory: rows without an a.trajectory-link: {_short(no_link)}")
        if outside:
            found.append("trajectory: trajectory links not of the form #anchor: "
                         f"{_short(outside)}")
        if missing:
            found.append(f"trajectory: links to an element not in the page: {_short(missing)}")
        if not_traj:
            found.append("trajectory: link targets without class trajectory: "
                         f"{_short(not_traj)}")
        if wrong:
            found.append(f"trajectory: link targets with another data-item: {_short(wrong)}")
        if shown:
            found.append("trajectory: trajectories visible before their link is followed: "
                         f"{_short(shown)}")

    def _trajectory(self, first: dict[str, Any], result: PageCheck) -> None:
        """Click the first row's trajectory link: its target must appear, and only then."""
        from selenium.common.exceptions import WebDriverException

        if not first["found"]:
            return  # already reported by _links
        item = first["item"]
        found = result.findings
        link: WebElement = self.driver.execute_script(
            "return document.querySelector('table#items > tbody > tr[data-item]')"
            ".querySelector('a.trajectory-link');")
        target: WebElement = self.driver.execute_script(
            "return document.getElementById(arguments[0]);", first["anchor"])
        if target.is_displayed():
            if not first["target_visible"]:  # else _links said so
                found.append(f"trajectory: {item}'s trajectory is visible before its link "
                             "is followed")
            return
        try:
            link.click()
        except WebDriverException as error:
            found.append(f"trajectory: cannot click {item}'s trajectory link: "
                         f"{_first_line(error)}")
            return
        if not _wait(target.is_displayed, self.settle):
            found.append(f"trajectory: following {item}'s trajectory link does not show "
                         f"#{first['anchor']}")
        elif not target.text.strip():
            found.append(f"trajectory: {item}'s trajectory is shown but empty")

    def _log(self, kind: str) -> list[dict[str, Any]]:
        """The browser's KIND log since the last call (reading it empties it)."""
        entries: list[dict[str, Any]] = self.driver.get_log(kind)  # type: ignore[no-untyped-call]
        return entries

    def _rows_are(self, good: Callable[[list[bool]], bool]) -> bool:
        return good(self._visible_rows())

    def _visible_rows(self) -> list[bool]:
        visible: list[bool] = self.driver.execute_script(_ROWS_VISIBLE)
        return visible

    def _type(self, box: WebElement, text: str) -> None:
        from selenium.webdriver.common.keys import Keys

        # One call (each costs a round trip): select all, delete, then the text, as keys,
        # so the page sees the input events a person typing would cause.
        box.send_keys(Keys.CONTROL, "a", Keys.NULL, Keys.BACKSPACE, *([text] if text else []))

    def _filter(self, facts: dict[str, Any], result: PageCheck) -> None:
        """Type an item id, then text no row holds, then nothing, into #item-filter."""
        from selenium.common.exceptions import WebDriverException
        from selenium.webdriver.common.by import By

        found = result.findings
        items: list[dict[str, Any]] = facts["items"]
        ids = [str(i["item"]) for i in items]
        hidden = [ids[n] for n, shown in enumerate(self._visible_rows()) if not shown]
        if hidden:
            found.append(f"filter: {len(hidden)} of {len(ids)} rows hidden with the filter "
                         f"empty: {_short(hidden)}")
        if facts["filter"] != "input":
            return  # reported by _static
        box = self.driver.find_element(By.ID, "item-filter")
        if not box.is_displayed():
            found.append("filter: #item-filter is not visible")
            return
        probe = _probe(items)
        must = [n for n, i in enumerate(ids) if probe in i]  # its id holds the text
        may = {n for n, i in enumerate(items)  # the text is somewhere in the row
               if probe.lower() in (str(i["item"]) + " " + str(i["text"])).lower()}

        def only_matching(visible: list[bool]) -> bool:
            return all(visible[n] for n in must) and all(
                n in may for n, shown in enumerate(visible) if shown)

        def none(visible: list[bool]) -> bool:
            return not any(visible)

        steps: list[tuple[str, Callable[[list[bool]], bool], str]] = [
            (probe, only_matching,
             f"only the rows matching it ({_short([ids[n] for n in sorted(may)])})"),
            (NO_MATCH_PROBE, none, "none"),
            ("", all, f"all {len(ids)}"),
        ]
        for text, good, expected in steps:
            try:
                self._type(box, text)
            except WebDriverException as error:
                found.append(f"filter: cannot type into #item-filter: {_first_line(error)}")
                return
            if not _wait(partial(self._rows_are, good), self.settle):
                shown = [ids[n] for n, s in enumerate(self._visible_rows()) if s]
                what = f"typing {text!r}" if text else "clearing it"
                found.append(f"filter: {what} leaves {len(shown)} of {len(ids)} rows "
                             f"visible ({_short(shown) or 'none'}), expected {expected}")

    def _console(self, result: PageCheck) -> None:
        for entry in self._log("browser"):
            level = str(entry.get("level", ""))
            if level in ("SEVERE", "WARNING"):
                message = " ".join(str(entry.get("message", "")).split())
                result.findings.append(f"console: {level} {message[:300]}")

    def _network(self, page_url: str, result: PageCheck) -> None:
        urls: list[str] = []
        for entry in self._log("performance"):
            try:
                message = json.loads(entry["message"])["message"]
            except (KeyError, TypeError, ValueError):
                continue
            params = message.get("params", {})
            if message.get("method") == "Network.requestWillBeSent":
                url = str(params.get("request", {}).get("url", ""))
            elif message.get("method") == "Network.webSocketCreated":
                url = str(params.get("url", ""))
            else:
                continue
            if not _allowed_request(url, page_url) and url not in urls:
                urls.append(url)
        for url in urls:
            result.findings.append(f"network: the page requested {url[:300]}")


def _probe(items: list[dict[str, Any]]) -> str:
    """The first item id that no other row holds (in its id or text), else the first id."""
    ids = [str(i["item"]) for i in items]
    for n, item_id in enumerate(ids):
        needle = item_id.lower()
        if needle and not any(needle in (ids[m] + " " + str(items[m]["text"])).lower()
                              for m in range(len(ids)) if m != n):
            return item_id
    return ids[0]


def check_page(path: Path | str, *, expect_items: int | None = None,
               expect_verdict: str | None = None, screenshot: Path | None = None,
               browser: Browser | None = None) -> PageCheck:
    """Check one page in a browser of its own (see PageChecker to check many)."""
    chosen = browser or find_browser()
    if chosen is None:
        raise BrowserError(_missing())
    with PageChecker(chosen) as checker:
        return checker.check(path, expect_items=expect_items, expect_verdict=expect_verdict,
                             screenshot=screenshot)


# -- command line -------------------------------------------------------------------------


@dataclass(frozen=True)
class Page:
    """One page to check and what it must show."""

    file: Path
    items: int | None = None
    verdict: str | None = None
    screenshot: Path | None = None
    top: Path | None = None


class UsageError(ValueError):
    pass


def read_manifest(manifest: Path) -> list[Page]:
    """The pages a manifest lists ([{file, items, verdict, screenshot}], paths relative to
    the manifest's directory)."""
    try:
        entries = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError(f"{manifest}: cannot read it as JSON ({error})") from error
    if not isinstance(entries, list) or not entries:
        raise UsageError(f"{manifest}: expected a non-empty JSON list of pages")
    base = manifest.parent
    pages = []
    for n, entry in enumerate(entries, 1):
        where = f"{manifest}: entry {n}"
        if not isinstance(entry, dict):
            raise UsageError(f"{where}: expected an object")
        unknown = sorted(set(entry) - {"file", "items", "verdict", "screenshot", "top"})
        if unknown:
            raise UsageError(f"{where}: unknown keys {', '.join(unknown)}")
        file, items = entry.get("file"), entry.get("items")
        verdict, shot, top = entry.get("verdict"), entry.get("screenshot"), entry.get("top")
        if not isinstance(file, str) or not file:
            raise UsageError(f"{where}: file must be a path")
        if items is not None and (isinstance(items, bool) or not isinstance(items, int)
                                  or items < 0):
            raise UsageError(f"{where}: items must be a count or null")
        if verdict is not None and verdict not in VERDICTS:
            raise UsageError(f"{where}: verdict must be one of {', '.join(VERDICTS)} or null")
        for key, value in (("screenshot", shot), ("top", top)):
            if value is not None and (not isinstance(value, str) or not value):
                raise UsageError(f"{where}: {key} must be a path or null")
        pages.append(Page(file=base / file, items=items, verdict=verdict,
                          screenshot=None if shot is None else base / shot,
                          top=None if top is None else base / top))
    return pages


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Check generated HTML report pages in headless Chromium.")
    parser.add_argument("files", nargs="*", type=Path, metavar="FILE")
    parser.add_argument("--items", type=int, help="the number of item rows expected")
    parser.add_argument("--verdict", choices=VERDICTS, help="the verdict expected")
    parser.add_argument("--screenshot", type=Path, help="write a full-page PNG here")
    parser.add_argument("--manifest", type=Path,
                        help="a JSON list of {file, items, verdict, screenshot}")
    return parser


def _pages(args: argparse.Namespace) -> list[Page]:
    if args.manifest is not None:
        if args.files or args.items is not None or args.verdict or args.screenshot:
            raise UsageError("--manifest takes no FILE, --items, --verdict or --screenshot")
        return read_manifest(args.manifest)
    if not args.files:
        raise UsageError("give a FILE or --manifest")
    if args.screenshot is not None and len(args.files) != 1:
        raise UsageError("--screenshot needs exactly one FILE")
    return [Page(file=f, items=args.items, verdict=args.verdict, screenshot=args.screenshot)
            for f in args.files]


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        pages = _pages(args)
    except UsageError as error:
        print(f"report_check: {error}", file=sys.stderr)
        return 2
    why: list[str] = []
    browser = ensure_browser(why=why)
    if browser is None:
        print(f"report_check: {why[0] if why else _missing()}", file=sys.stderr)
        return 2
    results = []
    try:
        with PageChecker(browser) as checker:
            for page in pages:
                result = checker.check(page.file, expect_items=page.items,
                                       expect_verdict=page.verdict,
                                       screenshot=page.screenshot, top=page.top)
                for finding in result.findings:
                    print(f"{page.file}: {finding}")
                print(result.summary(), flush=True)
                results.append(result)
    except BrowserError as error:
        print(f"report_check: {error}", file=sys.stderr)
        return 2
    failed = sum(not r.ok for r in results)
    if len(results) > 1:
        print(f"FAILED: {failed} of {len(results)} pages" if failed
              else f"ok: {len(results)} pages")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
