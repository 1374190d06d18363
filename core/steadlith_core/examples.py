"""Deterministic demo documents: generated prose for benchmarks and tests."""

from __future__ import annotations

import random

_VOCABULARY = (
    "the of and to in is that for it as with was on be by this are from or an at which "
    "chunk boundary edit index fingerprint window token stream paragraph sentence version "
    "embedding cache identity rolling polynomial candidate backup primary hard cut snap "
    "document revision locality shift phase region margin reviewer pipeline retrieval "
    "naïve café déjà-vu résumé über 日本語 emoji 🚀 data-driven well-known re-embed "
    "quickly rarely always never usually slowly carefully deterministic content-defined"
).split()


def generate_prose(n_chars: int = 1_000_000, seed: int = 1) -> str:
    """Prose-like text of about `n_chars` code points: sentences of 6-24 words,
    paragraphs of 2-7 sentences, a few long words. Same seed, same text."""
    rng = random.Random(seed)
    vocab = _VOCABULARY
    paragraphs: list[str] = []
    size = 0
    while size < n_chars:
        sentences = []
        for _ in range(rng.randint(2, 7)):
            words = [rng.choice(vocab) for _ in range(rng.randint(6, 24))]
            if rng.random() < 0.05:
                words.insert(rng.randrange(len(words)), "https://example.org/" + "ab12" * rng.randint(3, 40))
            words[0] = words[0][:1].upper() + words[0][1:]
            sentences.append(" ".join(words) + rng.choice(".....?!"))
        paragraph = " ".join(sentences)
        paragraphs.append(paragraph)
        size += len(paragraph) + 2
    return "\n\n".join(paragraphs)[:n_chars].rstrip() + "\n"
