"""AgentDojo (PyPI ``agentdojo``, pinned by the ``agentdojo`` extra) as a system under test.

The benchmark is driven through its own code: its suites, environments, FunctionsRuntime,
ground truths and checks; nothing of it is copied here. One module per job:

- `dojo`: importing the package (one line naming the extra when it is absent), suites
  and benchmark versions;
- `source`: which suite a `--source` file names, and the suite's source line;
- `world`: a fresh task environment, its JSON state, the tools as specs, one episode;
- `checks`: the benchmark's own utility and security checks as scorers;
- `learned`: facts read from a loaded suite (which tools change the environment);
- `system`: the adapter.
"""
