"""Importers: published results from other harnesses, stored as runs agent-assay did not execute."""
