"""A real model as the agent: an OpenAI-compatible tool-calling loop, domain-free.

`drive.model_episode` runs the loop (`loop.AgentLoop`) on any system that exposes
episodes: the system's tools are offered, each call goes to the system's episode,
and the result becomes a Trajectory. Model configs are data (`configs.model_params`).
`local_server` starts and stops a llama.cpp server for a GGUF file on loopback.
Only `loop` imports the OpenAI client, so nothing else here needs it installed.
"""
