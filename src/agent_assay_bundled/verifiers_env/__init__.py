"""verifiers environments as systems under test, driven through their own rollout path.

An environment's authors usually test it by calling its core functions directly; a model
reaches it only through the framework: the tools the harness offers, the arguments it
parses, the reward its rubric computes from the rollout's state. This package runs an
agent on an environment's tasks the way a model would, so what a policy can earn through
that path can be measured beside what the environment's own scripts claim.
"""
