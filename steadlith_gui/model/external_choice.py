"""Which external chunkers the window compares with, how they are sized, and whether the
panes show one of them: session state without Qt, saved in a workspace ("external").

An external chunker is a splitter of another library (steadlith_core.comparison.external.SPLITTERS)
or "jsonl": spans another pipeline wrote, one file for A and one for B. Sizing is the
user's choice, shown in the churn panel's menu:
- "matched": each splitter gets the chunk_size whose mean chunk tokens on A come closest
  to the mean of the rule the panes show (steadlith_core.comparison.external.match_mean_tokens), so
  the columns compare like with like;
- "own": every splitter runs at `chunk_size` tokens (of the rules' token counter).
JSONL spans are what they are: sizing does not apply to them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from steadlith_core.comparison.external import SPLITTERS, JsonlChunker, SplitterChunker

JSONL = "jsonl"
SIZINGS = ("matched", "own")
KNOWN = (*SPLITTERS, JSONL)
#: Column heads: the churn panel is a narrow dock; the full name is each head's tooltip.
SHORT_LABELS = {"langchain-recursive": "langchain", "llama-index-sentence": "llama-index",
                "chonkie-recursive": "chonkie", "semchunk": "semchunk", "fixed-tokens": "fixed·sized",
                JSONL: "JSONL"}
CHUNK_SIZE_RANGE = (4, 100_000)


class ExternalChoiceError(ValueError):
    """A saved choice that cannot be used; `where` is the JSON path under "external"."""

    def __init__(self, where: str, reason: str):
        self.where, self.reason = where, reason
        super().__init__(f"{where}: {reason}")


@dataclass(frozen=True)
class ExternalChoice:
    chunkers: tuple[str, ...] = ()  # KNOWN keys, in the order the user picked them
    sizing: str = "matched"
    chunk_size: int = 512  # the splitters' size when sizing is "own"
    jsonl: tuple[str, str] | None = None  # files of spans for A and B (with JSONL in chunkers)
    shown: str | None = None  # the chunker the panes show instead of a rule (one of chunkers)

    def __post_init__(self) -> None:
        for k in self.chunkers:
            if k not in KNOWN:
                raise ExternalChoiceError("chunkers", f"unknown chunker {k!r}; known: {', '.join(KNOWN)}")
        if len(set(self.chunkers)) != len(self.chunkers):
            raise ExternalChoiceError("chunkers", "a chunker is listed twice")
        if self.sizing not in SIZINGS:
            raise ExternalChoiceError("sizing", f"must be one of {', '.join(SIZINGS)}, not {self.sizing!r}")
        lo, hi = CHUNK_SIZE_RANGE
        if type(self.chunk_size) is not int or not lo <= self.chunk_size <= hi:
            raise ExternalChoiceError("chunk_size", f"must be an integer from {lo} to {hi:,}, not {self.chunk_size!r}")
        if JSONL in self.chunkers and self.jsonl is None:
            raise ExternalChoiceError("jsonl", "JSONL spans need a file for A and one for B")
        if self.shown is not None and self.shown not in self.chunkers:
            raise ExternalChoiceError("shown", f"{self.shown!r} is not one of the chosen chunkers")

    def toggled(self, key: str, on: bool, jsonl: tuple[str, str] | None = None) -> "ExternalChoice":
        """The choice with `key` added (at the end) or removed; removing the shown one
        gives the panes back to the rule."""
        if on:
            chunkers = self.chunkers if key in self.chunkers else (*self.chunkers, key)
            return replace(self, chunkers=chunkers, jsonl=jsonl if key == JSONL else self.jsonl)
        chunkers = tuple(k for k in self.chunkers if k != key)
        return replace(self, chunkers=chunkers, jsonl=None if key == JSONL else self.jsonl,
                       shown=None if self.shown == key else self.shown)

    def chunker(self, key: str, token_counter: str) -> SplitterChunker | JsonlChunker:
        """The chunker a column runs before any matching (matched sizing starts here)."""
        if key == JSONL:
            assert self.jsonl is not None
            return JsonlChunker(self.jsonl[0], self.jsonl[1], token_counter)
        return SplitterChunker(key, chunk_size=self.chunk_size, token_counter=token_counter)

    def to_dict(self) -> dict[str, Any]:
        return {"chunkers": list(self.chunkers), "sizing": self.sizing, "chunk_size": self.chunk_size,
                "jsonl": None if self.jsonl is None else {"a": self.jsonl[0], "b": self.jsonl[1]},
                "shown": self.shown}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "ExternalChoice":
        """A saved choice, checked whole; ExternalChoiceError names the field."""
        if not isinstance(data, Mapping):
            raise ExternalChoiceError("", "must be an object")
        chunkers = data.get("chunkers", [])
        if not isinstance(chunkers, list) or not all(isinstance(k, str) for k in chunkers):
            raise ExternalChoiceError("chunkers", "must be a list of chunker names")
        jsonl = data.get("jsonl")
        if jsonl is not None:
            if not isinstance(jsonl, Mapping) or not all(isinstance(jsonl.get(s), str) and jsonl.get(s)
                                                        for s in ("a", "b")):
                raise ExternalChoiceError("jsonl", 'must be {"a": PATH, "b": PATH} or null')
            jsonl = (jsonl["a"], jsonl["b"])
        shown = data.get("shown")
        if shown is not None and not isinstance(shown, str):
            raise ExternalChoiceError("shown", "must be a chunker name or null")
        return cls(tuple(chunkers), data.get("sizing", "matched"), data.get("chunk_size", 512), jsonl, shown)


def sizing_label(choice: ExternalChoice, rule: str) -> str:
    """How the external columns are sized, in words (the panel and the report say it)."""
    if choice.sizing == "matched":
        return f"chunk_size matched to {rule}'s mean chunk on A"
    return f"chunk_size {choice.chunk_size:,} tokens"
