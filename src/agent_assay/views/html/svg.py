"""A matplotlib figure as an inline <svg> string: deterministic, self-contained, with ids
that stay unique when several plots share one HTML document.

Text stays text (`svg.fonttype: none`, drawn in the reader's sans-serif font), the hash
salt is fixed per plot and the metadata carries no date, so the same figure gives the
same bytes. The XML prolog, doctype and metadata are dropped; every id matplotlib wrote
is either removed (nothing refers to it) or prefixed with the plot's name, because each
figure numbers its groups from 1 and two inline figures would otherwise share ids.
Labels come from adapters (metric, agent and operator names): matplotlib escapes text
it writes, and mathtext is off, so a `$` in a name is a dollar sign, not a formula.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from markupsafe import Markup, escape
from matplotlib import rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

STYLE: dict[Any, Any] = {
    "svg.fonttype": "none",
    "text.parse_math": False,
    "text.usetex": False,
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans", "Arial", "Helvetica"],
    "font.size": 9.5,
    "axes.titlesize": 10.5,
    "axes.titleweight": "bold",
    "axes.titlelocation": "left",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.edgecolor": "#8a9199",
    "axes.labelcolor": "#1d232a",
    "axes.axisbelow": True,
    "axes.unicode_minus": True,
    "xtick.color": "#4b5560",
    "ytick.color": "#1d232a",
    "grid.color": "#e3e7eb",
    "grid.linewidth": 0.7,
    "legend.frameon": False,
    "legend.fontsize": 9.0,
    "figure.dpi": 72.0,
    "savefig.dpi": 72.0,
}

_TAG = re.compile(r"<[^<>]+>")
_ID = re.compile(r'\sid="([^"]*)"')
_REF = re.compile(r'(url\(#|href="#)([^)"]+)')


@contextmanager
def figure(name: str, width: float, height: float) -> Iterator[Figure]:
    """A figure built and saved under the report's style and `name`'s hash salt."""
    settings: dict[Any, Any] = {**STYLE, "svg.hashsalt": f"agent-assay/{name}"}
    with rc_context(settings):
        fig = Figure(figsize=(width, height), layout="constrained")
        FigureCanvasAgg(fig)
        yield fig


def to_svg(fig: Figure, name: str, label: str) -> Markup:
    """`fig` as an <svg> element to inline (call inside `figure(name, ...)`)."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight",
                pad_inches=0.08)
    return Markup(inline(buffer.getvalue(), name, label))


def inline(document: str, prefix: str, label: str) -> str:
    """An SVG document as an element for an HTML page (see the module docstring)."""
    body = document[document.index("<svg"):]
    body = re.sub(r"\s*<metadata>.*?</metadata>", "", body, count=1, flags=re.S)
    body = re.sub(r'\s*<style type="text/css">[^<]*</style>', "", body, count=1)
    referenced = {m.group(2) for m in _REF.finditer(body)}

    def tag(match: re.Match[str]) -> str:
        text = _ID.sub(
            lambda m: f' id="{prefix}-{m.group(1)}"' if m.group(1) in referenced else "",
            match.group(0),
        )
        return _REF.sub(lambda m: f"{m.group(1)}{prefix}-{m.group(2)}", text)

    body = _TAG.sub(tag, body)
    return body.replace(
        "<svg ", f'<svg role="img" aria-label="{escape(label)}" ', 1
    ).rstrip() + "\n"
