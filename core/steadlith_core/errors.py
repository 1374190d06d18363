"""Error types of the core. Every error a user can cause is one of these.

Each carries a message meant to be shown as is: it names what is wrong and where.
"""

import importlib
from typing import Any


class SteadlithError(Exception):
    """Base of every error the core raises on bad input."""


MAX_RULE_CHARS = 300  # a rule quoting a 5000-character value still fits beside its field


def _bounded(text: str, limit: int) -> str:
    """`text` cut in the middle when longer than `limit`: both ends say something."""
    if len(text) <= limit:
        return text
    tail = limit // 3
    return f"{text[: limit - tail - 3]}...{text[-tail:]}"


class ParameterError(SteadlithError, ValueError):
    """A chunker parameter breaks its rule (docs/contract/tttd-v1.md#parameters)."""

    def __init__(self, field: str, rule: str, value: object = None):
        field = _bounded(str(field), 60)  # `--set` names come from the user too
        rule = _bounded(rule, MAX_RULE_CHARS)
        self.field = field
        self.rule = rule
        self.value = value
        super().__init__(f"{field}: {rule}")

    def __reduce__(self):
        # a worker process's error crosses back pickled; the default would call
        # __init__(message) and fail, which leaves a process pool waiting forever
        return type(self), (self.field, self.rule, self.value)


class FileError(SteadlithError, OSError):
    """A file could not be read or written. The message names the path and the reason."""

    def __init__(self, path: object, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")

    def __str__(self) -> str:  # OSError's own __str__ would show the args tuple
        return f"{self.path}: {self.reason}"

    def __reduce__(self):  # picklable from a worker process (see ParameterError.__reduce__)
        return type(self), (self.path, self.reason)


class LoadError(FileError):
    """A document could not be loaded: missing, unreadable, binary or not UTF-8."""


class ExportError(FileError):
    """An export (report, JSON, workspace) could not be written."""


class TokenCountError(SteadlithError, ValueError):
    """A token counter returned something other than a positive integer."""

    def __init__(self, counter_id: str, word_index: int, word: str, value: object, problem: str | None = None):
        self.counter_id = counter_id
        self.word_index = word_index
        self.word = word
        self.value = value
        self.problem = problem
        shown = word if len(word) <= 40 else word[:37] + "..."
        super().__init__(
            f"token counter {counter_id!r} returned {value!r} for word {word_index} "
            f"({shown!r}); {problem or 'counts must be positive integers'}"
        )

    def __reduce__(self):  # picklable from a worker process (see ParameterError.__reduce__)
        return type(self), (self.counter_id, self.word_index, self.word, self.value, self.problem)


class ComparisonError(SteadlithError, ValueError):
    """Two chunkings cannot be compared (different normalizer or parameters)."""


# -- names and messages that are shown to people -----------------------------------------

# Characters that change how the text around them looks rather than being seen:
# C0/C1 controls (newline, ESC starts a terminal escape sequence), line and paragraph
# separators, and the explicit bidi embeddings, overrides and isolates, which can make
# a name reverse the text beside it ("txt.exe" shown as "exe.txt").
_INVISIBLE = frozenset(
    [*range(0x00, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
)
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _surrogate(ch: str) -> bool:
    return 0xD800 <= ord(ch) <= 0xDFFF


def readable(text: str) -> str:
    """`text` as valid UTF-8 text: a file name's undecodable bytes (which Python keeps
    as lone surrogates, U+DC80..U+DCFF) become replacement characters (U+FFFD), as a
    UTF-8 decoder shows them, so a report or a JSON file that names the file can be
    written at all. Any other lone surrogate becomes U+FFFD too."""
    if not any(_surrogate(ch) for ch in text):
        return text
    return "".join("\ufffd" if _surrogate(ch) else ch for ch in text)


def visible(text: str) -> str:
    """`text` with every control, separator and bidi formatting character written as an
    escape (`\\n`, `\\x1b`, `\\u202e`), so a message that carries a user's name stays one
    line, sends no raw escape to a terminal and cannot reorder its neighbours.
    Backslashes are left alone: Windows paths stay readable. A file name's undecodable
    byte (a lone surrogate U+DC80..U+DCFF) is written as the byte, `\\xff`: two names
    that differ only there stay two names, and the text can be encoded."""
    if not any(ord(ch) in _INVISIBLE or _surrogate(ch) for ch in text):
        return text
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif 0xDC80 <= ord(ch) <= 0xDCFF:
            out.append(f"\\x{ord(ch) - 0xDC00:02x}")
        elif _surrogate(ch):
            out.append(f"\\u{ord(ch):04x}")
        elif ord(ch) in _INVISIBLE:
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


def pip_extra(extra: str) -> str:
    """The command that installs the optional dependency `extra`, for the one line an error
    gives: the package index name, and the checkout path for a user who installed from a
    clone (the core is not on every index a user can reach)."""
    return f"pip install 'steadlith-core[{extra}]' (from a checkout: pip install './core[{extra}]')"


def import_extra(module: str, extra: str, what: str, error: type[SteadlithError] = SteadlithError) -> Any:
    """`module` imported, or `error` with one line naming the extra that installs it: an
    optional dependency is imported where it is used, never at the package's import."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise error(f"{what} needs the package {module.split('.')[0]}: "
                    f"{pip_extra(extra)}") from None
