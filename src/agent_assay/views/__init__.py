"""Views of what the store holds: run summaries, pass^k, gates and banners, mutation tables and
verify findings, rendered as text or JSON. Nothing here runs an agent."""
