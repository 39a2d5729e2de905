"""The Store facade."""
