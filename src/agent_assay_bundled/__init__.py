"""The bundled systems' adapters: the only bridge between the harness and synthbank, govsim,
SynthWorld and tau-bench results. Each registers through the same entry points a third
party uses; the harness (agent_assay) never imports this package."""
