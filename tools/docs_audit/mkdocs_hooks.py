"""MkDocs hooks for the documentation site (named in mkdocs.yml).

A generated value is written `<!-- value: REF -->42<!-- /value -->` so that readme-check
can find and regenerate it. To Markdown, a line that starts with such a comment starts a
block of raw HTML, which ends the paragraph around it: on the site, a sentence broke into
pieces wherever a value began a line. The markers are for readme-check, not for readers,
so they are removed before the page is parsed, after the snippets extension has included
the top-level documents (which carry markers of their own).
"""

from __future__ import annotations

from typing import Any

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor

from tools.docs_audit.regions import VALUE

AFTER_SNIPPETS = 31
"""Preprocessors run from the highest priority down: pymdownx.snippets registers at 32,
and Markdown's raw-HTML block reader, which would take the markers first, at 20."""


class _Unmarked(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        """Each value region (as readme-check finds it) replaced by its value."""
        return VALUE.sub(lambda region: region["body"], "\n".join(lines)).split("\n")


class UnmarkValues(Extension):
    """Removes the markers around generated values, keeping the values."""

    def extendMarkdown(self, md: Markdown) -> None:  # Markdown's name for the hook
        md.preprocessors.register(_Unmarked(md), "unmark_generated_values", AFTER_SNIPPETS)


def on_config(config: Any) -> Any:
    config.markdown_extensions.append(UnmarkValues())
    return config
