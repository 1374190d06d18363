"""Error types of the core. Every error a user can cause is one of these.

Each carries a message meant to be shown as is: it names what is wrong and where.
"""


class SteadlithError(Exception):
    """Base of every error the core raises on bad input."""


class ParameterError(SteadlithError, ValueError):
    """A chunker parameter breaks its rule (SPEC §6)."""

    def __init__(self, field: str, rule: str, value: object = None):
        self.field = field
        self.rule = rule
        self.value = value
        super().__init__(f"{field}: {rule}")


class FileError(SteadlithError, OSError):
    """A file could not be read or written. The message names the path and the reason."""

    def __init__(self, path: object, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")

    def __str__(self) -> str:  # OSError's own __str__ would show the args tuple
        return f"{self.path}: {self.reason}"


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
        shown = word if len(word) <= 40 else word[:37] + "..."
        super().__init__(
            f"token counter {counter_id!r} returned {value!r} for word {word_index} "
            f"({shown!r}); {problem or 'counts must be positive integers'}"
        )


class ComparisonError(SteadlithError, ValueError):
    """Two chunkings cannot be compared (different normalizer or parameters)."""
