"""Inspect AI eval logs, in and out: the reader, the adapter their runs are stored under,
the importer and the exporter (each registered through the same entry points a third
party uses). Only this package imports ``inspect_ai``; the core never does."""
