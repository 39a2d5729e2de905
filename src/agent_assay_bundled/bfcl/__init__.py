"""BFCL multi-turn (PyPI `bfcl-eval`) as a system under test, driven through BFCL's own code.

The entries, the environment classes, the execution path and the checker are the installed
package's; this package only adapts them to the harness (see docs/bfcl.md).
"""
