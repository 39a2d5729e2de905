"""Mutation testing of the scorers: plant defects in real trajectories and see who notices.

Operators edit an agent's proposals; the edited proposals are replayed through
the system's own environment, so the final state and outcome are real
consequences; detectors decide which metrics noticed.
"""
