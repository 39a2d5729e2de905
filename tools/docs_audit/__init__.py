"""Numbers from commands: generated regions, a number audit, and evidence claims."""
