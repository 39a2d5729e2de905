"""The one exception tool handlers raise for bad agent input.

Promise: anything raised as ``ToolError`` becomes an error envelope; any other exception
is a bug in this package. Must not import agent_assay.
"""


class ToolError(ValueError):
    """A tool call the agent got wrong; the message is shown to the agent."""
