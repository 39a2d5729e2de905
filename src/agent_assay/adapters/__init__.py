"""Adapters: the plugin surface (`System`, `Facts`, capabilities), the entry-point registry, and
the loaded system the harness drives."""
