"""Scorers: pure functions of gold, trajectory and the adapter-declared context."""
