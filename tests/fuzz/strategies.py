"""Strategies shared by the targets: JSON values, hostile texts, mutations of a valid document."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import strategies as st

# every code point, lone surrogates too (a POSIX argument or file name can hold them)
ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=40)
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.sampled_from([2**63 - 1, -(2**63), 2**64, 2**31]),
    st.floats(), st.text(max_size=20), ANY_TEXT,
)
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT, inner, max_size=4),
                    max_leaves=12)

# texts that broke parsers before: deep nesting, numbers past int()'s digit limit,
# Infinity, a byte-order mark, NUL, a lone surrogate, CR line ends
HOSTILE_TEXTS = st.sampled_from([
    "[" * 100_000, '{"a":' * 20_000 + "1" + "}" * 20_000, "[" * 3000 + "]" * 3000, "1" * 5000, "-" + "9" * 4400,
    "Infinity", "-Infinity", "NaN", "1e400", "\ufeff{}", "\x00", "{}", "[]", "null", '"\ud800"', "\r\n\r", "",
    '{"\\ud800": 1}', "0x10", "1" * 20,
])


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate becomes the bytes a decoder refuses


def _slots(value: Any, out: list) -> list:
    """(container, key) of every value inside `value`, depth first."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        out.append((value, key))
        _slots(child, out)
    return out


@st.composite
def mutated(draw, base: Any, max_steps: int = 3) -> Any:
    """`base` (a valid document) with one to `max_steps` values replaced, removed or added:
    close enough to valid that the checks past the first one are reached."""
    doc = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, max_steps))):
        slots = _slots(doc, [])
        if not slots:
            break
        container, key = draw(st.sampled_from(slots))
        action = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if action == "replace":
            container[key] = draw(JSON)
        elif action == "delete":
            del container[key]
        elif isinstance(container, dict):
            container[draw(ANY_TEXT)] = draw(JSON)
        else:
            container.append(draw(JSON))
    return doc
