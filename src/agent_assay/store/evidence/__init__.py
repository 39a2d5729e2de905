"""The evidence checks."""
