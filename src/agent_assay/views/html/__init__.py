"""The HTML form of a run's report and of a comparison: one static, self-contained file.

`run_page_of(data)` (a run's snapshot, `views.load.page_data`) and
`comparison_page(comparison, forced=...)` return the page as a string; nothing here reads
a store, writes a file or reaches the network, and the page itself loads nothing from
outside (no CDN, no web font, no image file: plots are inline SVG).
"""

from agent_assay.views.html.page import comparison_page, run_page_of

__all__ = ["comparison_page", "run_page_of"]
