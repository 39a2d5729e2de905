"""Settings: config parameters a person may change for one run (`run -M key=value`)
without editing the system's code.

A system declares which parameters are settable and their types (`Facts.settings`; the
harness's model agent declares its own, `llm.configs.MODEL_SETTINGS`). A config holding
such a parameter has it settable, its own value the default. A set value replaces the
parameter in the config's params, so it is part of the config hash: a run with other
settings is a run of another config, and the same settings in any order hash the same.
Anything not declared is refused, and a value is parsed by the declared type.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from agent_assay.errors import AssayError, quoted

TYPE_WORDS: dict[type, str] = {bool: "a boolean", int: "an integer", float: "a number",
                               str: "a string"}
SETTING_TYPES = tuple(TYPE_WORDS)
TRUE = ("true", "yes", "on", "1")
FALSE = ("false", "no", "off", "0")


def type_problem(key: str, kind: object) -> str | None:
    """Why `kind` cannot be a declared setting's type, or None."""
    if kind in SETTING_TYPES:
        return None
    return (f"settings[{key!r}] is {getattr(kind, '__name__', kind)!r}; a setting is "
            "bool, int, float or str")


def _fits(kind: type, value: object) -> bool:
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def parse_setting(key: str, kind: type, value: object) -> object:
    """`value` (a string as typed, or a value of the declared type) as a value of `kind`."""
    accepted = f" ({', '.join((*TRUE, *FALSE))})" if kind is bool else ""
    finite = " (finite)" if kind is float else ""
    bad = AssayError(f"-M {key}={quoted(str(value))}: {key} takes {TYPE_WORDS[kind]}"
                     f"{accepted}{finite}")
    if not isinstance(value, str):
        if not _fits(kind, value):
            raise bad
        parsed: object = float(value) if kind is float else value  # type: ignore[arg-type]
    elif kind is bool:
        if value.strip().lower() not in (*TRUE, *FALSE):
            raise bad
        parsed = value.strip().lower() in TRUE
    elif kind is int or kind is float:
        try:
            parsed = kind(value.strip())
        except (ValueError, OverflowError):
            raise bad from None
    else:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise AssayError(f"-M {key}={quoted(value)}: the value is not valid UTF-8") from None
        parsed = value
    if isinstance(parsed, float) and not math.isfinite(parsed):
        raise bad
    return parsed


def applied(
    params: Mapping[str, Any],
    declared: Mapping[str, type],
    given: Mapping[str, object],
    where: str,
) -> dict[str, Any]:
    """`params` with `given` set; `declared` is every settable parameter (those `params`
    lacks are not this config's), `where` names the config in a refusal."""
    settable = {key: kind for key, kind in declared.items() if key in params}
    out = dict(params)
    for key in sorted(given):
        if key not in settable:
            names = ", ".join(sorted(settable)) or "none"
            raise AssayError(f"-M {quoted(key)}: {where} declares no such setting "
                             f"(settable: {names})")
        kind = settable[key]
        if not _fits(kind, params[key]):
            raise AssayError(f"{where}: setting {key} is declared {TYPE_WORDS[kind]}, but "
                             f"the config holds {params[key]!r}")
        out[key] = parse_setting(key, kind, given[key])
    return out
