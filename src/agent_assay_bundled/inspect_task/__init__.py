"""An Inspect AI task (PyPI ``inspect-ai``, pinned by the ``inspect`` extra) as a system
under test.

The task runs through Inspect's own public API: its loader, its dataset, its solver with
the task's tools, its store and its scorer; nothing of Inspect is copied here. One module
per job:

- `door`: importing inspect_ai (one line naming the extra when it is absent) and its version;
- `source`: which task a ``--source`` names, its arguments, and the suite's source line;
- `loading`: the task object a source names, built once per process;
- `items`: the task's samples as items (id, input, target as gold);
- `bridge`: one sample run by Inspect with its model's turns handed to the harness;
- `episode`: that run as an episode (calls in, the ending out);
- `transcript`: a finished Inspect sample read back as steps, an answer and a state;
- `scripted`: the ``mock`` config, Inspect's mockllm with scripted outputs;
- `checks`: the task's own scorer as a system scorer;
- `learned`: facts read from a loaded task (which tools change the store);
- `system`: the adapter.
"""
