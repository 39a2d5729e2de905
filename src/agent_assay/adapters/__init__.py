"""Adapters: the protocol, the entry-point registry, and one module per bundled system."""
