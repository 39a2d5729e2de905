"""Reports: summarise a stored run, then render it as text or JSON."""
