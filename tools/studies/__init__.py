"""Simulations that measure the statistics and the controls themselves (coverage, power,
agreement, crash bias, a rare slip, random_agent's flips) into reports/stats and reports/bench."""
