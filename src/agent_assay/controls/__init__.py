"""Negative (and one positive) controls: runs whose result is known in advance.

A control passes when the harness goes red where it must. Admissibility of a
run is decided from the stored outcomes of these controls.
"""
