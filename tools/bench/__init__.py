"""Performance benchmarks: each `make bench-*` target measures one figure into reports/bench/
(output.py writes them, worktree.py checks out the commit a figure is compared against)."""
