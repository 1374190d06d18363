"""A literal transcription of SPEC-lmx2 §2-§4 as a test oracle: plain Python ints,
every set built by comparing each cut with every other cut (O(n^2)), no numpy and no
code shared with the fast path. Word splitting is SPEC §1's, taken from the core."""

from __future__ import annotations

import math
from dataclasses import dataclass

import xxhash

from steadlith_core.chunking.normalize import normalize

B = 0x9E3779B97F4A7C15
MASK = 2**64 - 1
CLOSERS = "\"')]}\u201d\u2019\u00bb"  # SPEC §5.2, copied from the text
SENTENCE_ENDS = (".", "!", "?", "\u2026", "\u3002", "\uff01", "\uff1f")


def fmix(z: int) -> int:
    z ^= z >> 30
    z = (z * 0xBF58476D1CE4E5B9) & MASK
    z ^= z >> 27
    z = (z * 0x94D049BB133111EB) & MASK
    z ^= z >> 31
    return z


def count_tokens(word: str, counter: str) -> int:
    if counter == "chars4/1":
        return math.ceil(len(word) / 4)
    if counter == "words/1":
        return 1
    raise ValueError(counter)


@dataclass
class OracleResult:
    x: list[int]
    h: dict[int, int]
    key_1: dict[int, int]
    key_2: dict[int, int]
    cls: dict[int, int]  # with the preference on, as reported
    chunks: list[tuple[int, int, str, str]]  # start word, end word, kind, boundary


def oracle(texts: list[str], para: list[bool], tok: list[int], p: dict, key_tokens_read: int | None = None) -> OracleResult:
    """`p` holds min_tokens, max_tokens, horizon, fill_horizon, key_tokens and
    boundary_preference. `key_tokens_read` overrides how far a key reads (the broken
    variant of the locality test), leaving every other use of key_tokens alone."""
    n = len(texts)
    x = [0]
    for t in tok:
        x.append(x[-1] + t)
    K = p["key_tokens"] if key_tokens_read is None else key_tokens_read
    interior = range(1, n)

    def dist(c: int, d: int) -> int:
        return abs(x[c] - x[d])

    def ends_sentence(word: str) -> bool:
        return word.rstrip(CLOSERS).endswith(SENTENCE_ENDS)

    def class_of(c: int) -> int:
        if para[c]:
            return 2
        if ends_sentence(texts[c - 1]):
            return 1
        return 0

    symbol = [xxhash.xxh3_64_intdigest(w.encode("utf-8", "surrogatepass"), 1 if para[i] else 0) for i, w in enumerate(texts)]
    h, key_1, key_2, cls = {}, {}, {}, {}
    for c in interior:
        a = c - 1
        while a - 1 >= 0 and x[c] - x[a - 1] <= K:
            a -= 1
        hv = 0
        for i in range(a, c):
            hv = (hv * B + symbol[i]) & MASK
        h[c] = hv
        cls[c] = class_of(c)
        r = cls[c] if p["boundary_preference"] == "paragraph-sentence/1" else 0
        key_1[c] = (r << 61) | (fmix(hv ^ 1) >> 3) | 1
        key_2[c] = (r << 61) | (fmix(hv ^ 2) >> 3) | 1

    lo, G = p["min_tokens"], (p["max_tokens"] + 1 - p["min_tokens"]) // 2
    E = {0, n} | {c for c in interior if tok[c - 1] >= lo or tok[c] >= lo}
    S = set()
    for c in interior:
        if c in E:
            continue
        if any(dist(c, e) < lo for e in E):
            continue
        if all(key_1[c] >= key_1[d] for d in interior if d != c and dist(c, d) <= p["horizon"]):
            S.add(c)
    Z = set()
    for c in interior:
        if c in E or c in S:
            continue
        if all(dist(c, e) >= G for e in E | S):
            Z.add(c)
    Q = set()
    for c in Z:
        if all(key_2[c] >= key_2[d] for d in Z if d != c and dist(c, d) <= p["fill_horizon"]):
            Q.add(c)
    cuts = sorted(E | S | Q) if n else []
    chunks = []
    for s, e in zip(cuts, cuts[1:]):
        if e == n:
            kind, boundary = "end", "end"
        else:
            kind = "long-word" if e in E else "primary" if e in S else "fill"
            boundary = ("word", "sentence", "paragraph")[cls[e]]
        chunks.append((s, e, kind, boundary))
    return OracleResult(x, h, key_1, key_2, cls, chunks)


def oracle_text(text: str, p: dict, key_tokens_read: int | None = None) -> OracleResult:
    words = normalize(text)
    texts = list(words.texts)
    return oracle(texts, [bool(f) for f in words.para], [count_tokens(w, p["token_counter"]) for w in texts], p, key_tokens_read)
