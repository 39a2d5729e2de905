"""Where agents run: in agent processes on this host, or on a Dask cluster.

An executor turns tasks into trajectories and never writes: the runner stays
the single writer, so an executor is added by implementing `protocol.Executor` (and a
`protocol.Backend` that makes it) without touching scorers or the store. With several
workers the process backend also scores, in processes that never run an agent
(`scored_pool`); any executor may instead hand back plain trajectories for the
writer to score.

The modules, bottom up: `spec` (the `ExecutorSpec` the API and the CLI take; it loads
no executor), `protocol` (what an executor and a backend are, what they hand the
writer), `batching`, `scored_pool` and `dask_cluster` (executors), and `processes` (agent
processes on this host, and `open_backend`, the backend a spec asks for). This package
module imports none of them, so naming an executor loads none.

On this host an agent never runs in the writer's process: every run, resume and
twin starts agent processes through `hosting.pool`, the one way there is, so nothing
an agent can observe tells a run from a control's execution of it. The Dask executor
(`dask_cluster`) keeps the same rules; it is imported only when asked for, so the
default path never loads dask.
"""
