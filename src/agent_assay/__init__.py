"""agent-assay: an evaluation-integrity harness for tool-calling agents."""
