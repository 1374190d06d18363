"""The golden vectors of the tokenizer counters (docs/contract/tokens.md#vectors):
tests/golden/tokenizer/vectors.json, words -> counts under the shipped fixture
bpe-512.json and OpenAI's cl100k_base and o200k_base. `python tests/core/token_vectors.py`
writes the file anew; do that only for a new fixture or a new per-word form, on purpose."""

from __future__ import annotations

import json
import sys
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "tokenizer"
FIXTURE = GOLDEN / "bpe-512.json"
VECTORS = GOLDEN / "vectors.json"

WORDS = [
    "a", "the", "The", "word", "words", "tokenizer", "Tokenizers", "content-defined", "\u201cquoted.\u201d",
    "(see", "docs/contract/tokens.md#per-word", "**bold**", "`code`", "##", "-", "|", "1,234,567", "3.14159",
    "na\u00efve", "caf\u00e9", "\u65e5\u672c\u8a9e", "\U0001f600", "\U0001f680\U0001f680", "<|endoftext|>",
    "[CLS]", "\u200b", "\ud800", "x" * 64, "https://example.org/ab12ab12ab12", "don't", "I'm",
]


def specs() -> dict[str, str]:
    """Each counter's spec; the fixture by a path relative to nothing (its file name is the key)."""
    return {"hf:bpe-512.json": f"hf:{FIXTURE}", "tiktoken:cl100k_base": "tiktoken:cl100k_base",
            "tiktoken:o200k_base": "tiktoken:o200k_base"}


def vectors_text(words: list[str] = WORDS) -> str:
    from steadlith_core.chunking.model_tokens import resolve

    counters = {}
    for key, spec in specs().items():
        counting = resolve(spec)
        counters[key] = {"id": counting.id, "counts": [[w, n] for w, n in zip(words, counting.count_words(words))]}
    doc = {"form": "tokens of ' ' + word, no special tokens, at least 1 (docs/contract/tokens.md#per-word)",
           "counters": counters}
    # ASCII escapes keep the lone surrogate writable and every byte of the file stable
    return json.dumps(doc, ensure_ascii=True, indent=1) + "\n"


if __name__ == "__main__":
    VECTORS.write_text(vectors_text(), encoding="ascii")
    print(VECTORS, file=sys.stderr)
