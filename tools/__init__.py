"""The repository's own scripts, sorted by job; none ships with the package. Each runs from
the repository root as `python -m tools.PACKAGE.MODULE`."""
