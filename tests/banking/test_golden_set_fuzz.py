"""Fuzzed golden scripts: the banking adapter, as the harness loads it, builds a hashed
suite or says in one line, naming the file or the item, what is wrong. Never a traceback.

Each case starts from a real bundled script and damages it one way: a value replaced
(by anything YAML can hold, NaN and huge numbers included), a key dropped, a key
added, a value written as a scalar Python cannot hold (a 5000-digit integer, a 13th
month, deep brackets, an unknown alias or tag), the text cut short, or bytes spliced in.
The case counts are printed at the end of the test run (tests/conftest.py shows each
test's `summary` property).
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_assay.adapters.loaded import load_system
from agent_assay.errors import AssayError
from agent_assay_bundled.banking import BankingAdapter
from synthbank.scripts import default_scripts_dir

SCRIPTS = sorted(default_scripts_dir().glob("*/*.yaml"))
CASES = 400
HOSTILE_SCALARS = [b"9" * 5000, b"2026-13-45", b".nan", b"-.inf", b"[" * 3000, b"*nope",
                   b"!!python/object:os.system ls", b"&a [*a]"]

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30),
    st.sampled_from(["SYN-CUST-0004", "SYN-ACCT-0006", "resolved", "transfer", "", "~"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                               max_size=3),
    max_leaves=8,
)


def paths(node: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a parsed document a value sits, the root included."""
    found = [at]
    if isinstance(node, dict):
        for key, value in node.items():
            found += paths(value, (*at, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += paths(value, (*at, index))
    return found


def replaced(document: Any, at: tuple[Any, ...], value: Any) -> Any:
    if not at:
        return value
    head, rest = at[0], at[1:]
    if isinstance(document, dict):
        return {**document, head: replaced(document[head], rest, value)}
    copy = list(document)
    copy[head] = replaced(copy[head], rest, value)
    return copy


def dropped(document: Any, at: tuple[Any, ...]) -> Any:
    if len(at) == 1 and isinstance(document, dict):
        return {k: v for k, v in document.items() if k != at[0]}
    if len(at) == 1 and isinstance(document, list):
        return [v for i, v in enumerate(document) if i != at[0]]
    if not at:
        return None
    return replaced(document, at[:1], dropped(document[at[0]], at[1:]))


@st.composite
def damaged(draw: Callable[..., Any]) -> tuple[Path, bytes]:
    """A bundled script's path and damaged bytes for it."""
    script = draw(st.sampled_from(SCRIPTS))
    raw = script.read_bytes()
    document = yaml.safe_load(raw)
    how = draw(st.sampled_from(["replace", "drop", "add", "cut", "splice", "raw"]))
    if how in ("replace", "drop"):
        at = draw(st.sampled_from(paths(document)))
        document = replaced(document, at, draw(values)) if how == "replace" else dropped(
            document, at)
    elif how == "add":
        document = {**document, draw(st.text(max_size=12)): draw(values)}
    if how == "raw":  # a scalar YAML reads but Python cannot hold, written into a value
        lines = raw.split(b"\n")
        index = draw(st.sampled_from([i for i, line in enumerate(lines) if b": " in line]))
        key = lines[index].split(b": ", 1)[0]
        lines[index] = key + b": " + draw(st.sampled_from(HOSTILE_SCALARS))
        return script, b"\n".join(lines)
    if how == "cut":
        return script, raw[: draw(st.integers(0, len(raw)))]
    if how == "splice":
        where = draw(st.integers(0, len(raw)))
        return script, raw[:where] + draw(st.binary(min_size=1, max_size=8)) + raw[where:]
    return script, yaml.safe_dump(document, allow_unicode=True, sort_keys=False).encode()


@pytest.mark.usefixtures("same_cases_in_any_run")
def test_damaged_golden_scripts_build_or_fail_in_one_line(
    record_property: Callable[[str, object], None],
) -> None:
    seen: Counter[str] = Counter()

    @settings(max_examples=CASES, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(damaged())
    def case(sample: tuple[Path, bytes]) -> None:
        script, data = sample
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(scratch)
            target = root / script.parent.name / script.name
            target.parent.mkdir()
            target.write_bytes(data)
            try:
                suite = load_system(BankingAdapter()).build_suite(root)
                assert len(suite.suite_hash) == 64 and len(suite.items) == 1
                seen["built"] += 1
            except AssayError as exc:
                message = str(exc)
                assert "\n" not in message, message
                # the file for what the adapter reads, the item for what the harness checks
                assert str(target) in message or "adapter banking: item " in message, message
                seen["one-line error"] += 1
            finally:
                shutil.rmtree(root / script.parent.name, ignore_errors=True)

    case()
    total = sum(seen.values())
    assert total >= CASES // 2
    record_property(
        "summary",
        f"golden-script fuzz: {total} cases, {seen['one-line error']} one-line errors, "
        f"{seen['built']} built, 0 tracebacks",
    )


@pytest.mark.parametrize(("edit", "said"), [
    (lambda raw: raw.replace(b"\ncaller: ", b"\ncaller: SYN-CUST-0001\ncaller: ", 1),
     ":5: duplicate key 'caller'"),
    (lambda raw: raw.replace(b"\ncaller: ", b'\ncaller: "\\udc80"\nx: ', 1),
     ":4: golden script holds a lone surrogate '\\udc80'"),
])
def test_a_golden_script_given_a_key_twice_or_a_lone_surrogate_is_one_line(
    tmp_path: Path, edit: Callable[[bytes], bytes], said: str
) -> None:
    """YAML keeps the last of a key given twice, silently: the script that was built was
    not the one its author read. An escaped lone surrogate reached the store and failed
    there. Both are refused at their line, as the harness refuses them in every file."""
    script = SCRIPTS[0]
    target = tmp_path / script.parent.name / script.name
    target.parent.mkdir()
    target.write_bytes(edit(script.read_bytes()))
    with pytest.raises(AssayError) as refused:
        load_system(BankingAdapter()).build_suite(tmp_path)
    assert str(refused.value).startswith(f"{target}{said}"), str(refused.value)
