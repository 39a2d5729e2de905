"""Where agent code runs: agent processes started one way for every caller (see `host`)."""
