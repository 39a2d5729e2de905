"""Checks proposed tool arguments against the small JSON-schema subset the tool specs use.

Promise: `check_arguments` never raises; it returns None for valid arguments or one short
error line, so the environment can turn any malformed proposal into a failed step instead
of crashing the episode. Supported keywords: type (string, integer), enum, minimum,
maximum, pattern; strings must also be non-blank. This module must not import agent_assay.
"""

import re
from collections.abc import Mapping
from typing import Any


def check_arguments(schema: Mapping[str, Any], args: object) -> str | None:
    """Return an error line for the first problem found, else None."""
    if not isinstance(args, Mapping):
        return "arguments must be an object"
    properties: Mapping[str, Any] = schema["properties"]
    for key in args:
        if key not in properties:
            return f"unexpected argument: {key}"
    for key in schema["required"]:
        if key not in args:
            return f"missing argument: {key}"
    for key, value in args.items():
        problem = _check_value(key, properties[key], value)
        if problem is not None:
            return problem
    return None


def _check_value(name: str, rule: Mapping[str, Any], value: object) -> str | None:
    if rule["type"] == "integer":
        return _check_integer(name, rule, value)
    if not isinstance(value, str):
        return f"argument {name} must be a string"
    if not value.strip():
        return f"argument {name} must not be blank"
    if "enum" in rule and value not in rule["enum"]:
        return f"argument {name} must be one of: {', '.join(rule['enum'])}"
    if "pattern" in rule and re.fullmatch(rule["pattern"], value) is None:
        return f"argument {name} has an invalid format"
    return None


def _check_integer(name: str, rule: Mapping[str, Any], value: object) -> str | None:
    # bool is a subclass of int in Python, but `true` is not an integer in JSON.
    if not isinstance(value, int) or isinstance(value, bool):
        return f"argument {name} must be an integer"
    if "minimum" in rule and value < rule["minimum"]:
        return f"argument {name} must be >= {rule['minimum']}"
    if "maximum" in rule and value > rule["maximum"]:
        return f"argument {name} must be <= {rule['maximum']}"
    return None
