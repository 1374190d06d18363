"""SPEC-lmx2 §7 as a property: every chunk of B lying wholly in a region shared with A,
at token distance >= M from the region's ends, is a chunk of A with the same hash.

Documents are word lists that remember, for every word of B, which word of A it was
copied from; the shared regions are then known from the edits' construction (maximal
runs copied in order, with the same paragraph flag), not guessed by a diff. The same
harness must find violations in a broken variant of the rule and in tttd-v1."""

from __future__ import annotations

import random
from typing import Callable, NamedTuple

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from steadlith_core import ChunkerParams, chunk
from steadlith_core.bench.examples import COUNTEREXAMPLE_INSERTION, phase_shift_counterexample
from steadlith_core.chunking.identity import chunk_hash_prefix
from steadlith_core.chunking.boundaries import boundary_classes
from steadlith_core.chunking.canonical import CanonicalText, compute_symbols, utf8_words
from steadlith_core.chunking.chunks import build_chunks
from steadlith_core.chunking.lmx2 import CHUNKER_FAMILY, compute_cuts, compute_keys, spans
from steadlith_core.chunking.lmx2_params import Lmx2Params
from steadlith_core.chunking.normalize import normalize
from steadlith_core.chunking.tokens import get_counter


class Item(NamedTuple):
    word: str
    para: bool
    origin: int | None  # index of the word of A this word was copied from


class Run(NamedTuple):
    """[b0, b1) of B equals [a0, a0 + b1 - b0) of A, word for word, flags included."""

    a0: int
    b0: int
    b1: int


class Cutting(NamedTuple):
    cum: list[int]
    chunks: list[tuple[int, int, str, str]]  # start word, end word, kind, hash


# -- documents and edits ----------------------------------------------------------------

VOCABULARY = ["a", "bb", "tide", "echo", "end.", "why?\u201d", "Stop!", "(so.)", "of", "the"]
LONG_WORDS = ["interdisciplinarianisms-xyz", "x" * 47, "counterrevolutionaries-abc-" * 3]


def render(items: list[Item]) -> str:
    out = []
    for k, it in enumerate(items):
        if k:
            out.append("\n\n" if it.para else " ")
        out.append(it.word)
    return "".join(out)


def fresh_words(rng: random.Random, count: int) -> list[tuple[str, bool]]:
    vocab = VOCABULARY[: rng.randint(2, len(VOCABULARY))]
    out = []
    for _ in range(count):
        word = rng.choice(LONG_WORDS) if rng.random() < 0.04 else rng.choice(vocab)
        out.append((word, rng.random() < 0.06))
    return out


def make_document(rng: random.Random, size: int) -> list[Item]:
    words: list[tuple[str, bool]] = []
    while len(words) < size:
        block = fresh_words(rng, rng.randint(1, 40))
        words.extend(block * (rng.randint(2, 5) if rng.random() < 0.3 else 1))  # repeated text
    words = words[:size]
    return [Item(w, bool(p) and k > 0, k) for k, (w, p) in enumerate(words)]


def edit(rng: random.Random, items: list[Item]) -> list[Item]:
    """One random edit: insert, delete, replace, paragraph split or merge, or a move."""
    n = len(items)
    kind = rng.choice(["insert", "delete", "replace", "split", "merge", "move"])
    pos = rng.randint(0, n)
    length = rng.randint(1, 25)
    new = [Item(w, p, None) for w, p in fresh_words(rng, length)]
    if kind == "insert":
        return items[:pos] + new + items[pos:]
    if kind == "delete":
        return items[:pos] + items[pos + length :]
    if kind == "replace":
        return items[:pos] + new + items[pos + length :]
    if kind in ("split", "merge") and n:
        pos = min(pos, n - 1)
        return items[:pos] + [items[pos]._replace(para=kind == "split")] + items[pos + 1 :]
    block, rest = items[pos : pos + length], items[:pos] + items[pos + length :]
    at = rng.randint(0, len(rest))
    return rest[:at] + block + rest[at:]


def make_case(rng: random.Random) -> tuple[list[Item], list[Item]]:
    a = make_document(rng, rng.randint(0, 320))
    b = a
    for _ in range(rng.randint(1, 3)):
        b = edit(rng, b)
    if b:  # word 0 never starts a paragraph (SPEC §1.4)
        b = [b[0]._replace(para=False)] + b[1:]
    return a, b


def shared_runs(a: list[Item], b: list[Item]) -> list[Run]:
    runs: list[Run] = []
    start = None
    for k in range(len(b) + 1):
        same = k < len(b) and b[k].origin is not None and b[k].para == a[b[k].origin].para
        if start is not None and same and b[k].origin == b[k - 1].origin + 1:
            continue
        if start is not None:
            runs.append(Run(b[start].origin, start, k))
        start = k if same else None
    return runs


# -- the check -----------------------------------------------------------------------------


def violations(cut: Callable[[str], Cutting], a: list[Item], b: list[Item], runs: list[Run], margin: int) -> list[str]:
    """Every B cut in [r0 + M, r1 - M] of a run must be an A cut with the same kind, and
    every B chunk between two such cuts an A chunk with the same hash."""
    ca, cb = cut(render(a)), cut(render(b))
    a_chunks = {(s, e): (kind, h) for s, e, kind, h in ca.chunks}
    a_cut_kinds = {e: kind for s, e, kind, h in ca.chunks}
    found = []
    for run in runs:
        r0, r1 = cb.cum[run.b0], cb.cum[run.b1]
        shift = run.a0 - run.b0
        inside = lambda c: r0 + margin <= cb.cum[c] <= r1 - margin  # noqa: E731
        for s, e, kind, h in cb.chunks:
            if inside(e) and a_cut_kinds.get(e + shift) != kind:
                found.append(f"B cut {e} ({kind}) is not an A cut of that kind at {e + shift}; run {run}")
            if inside(s) and inside(e) and a_chunks.get((s + shift, e + shift)) != (kind, h):
                found.append(f"B chunk [{s}, {e}) is not A's chunk [{s + shift}, {e + shift}); run {run}")
    return found


def lmx2_cutter(p: Lmx2Params) -> Callable[[str], Cutting]:
    def cut(text: str) -> Cutting:
        r = chunk(text, p)
        return Cutting(r.cum_tokens.tolist(), [(c.start_word, c.end_word, c.kind, c.hash) for c in r.chunks])

    return cut


def widened_key_cutter(p: Lmx2Params, extra: int) -> Callable[[str], Cutting]:
    """lmx2-v1 with keys reading `extra` more tokens to the left than key_tokens says,
    while the margin is still computed from key_tokens: the theorem must break."""

    def cut(text: str) -> Cutting:
        words = normalize(text)
        encoded = utf8_words(words)
        tok = get_counter(p.token_counter).count(words)
        cum = np.concatenate([[0], np.cumsum(tok)]).astype(np.int64)
        classes = boundary_classes(text, words)
        keys = compute_keys(compute_symbols(words, encoded), cum, classes, p.key_tokens + extra, p.prefers_boundaries)
        cuts = compute_cuts(keys, tok, cum, p.min_tokens, p.gate, p.horizon, p.fill_horizon)
        found = [(s.start_word, s.end_word, s.kind, False, s.boundary) for s in spans(cuts, classes)]
        chunks = build_chunks(words, CanonicalText(words, encoded), found, cum, chunk_hash_prefix(p.params_hash, CHUNKER_FAMILY))
        return Cutting(cum.tolist(), [(c.start_word, c.end_word, c.kind, c.hash) for c in chunks])

    return cut


def tttd_cutter(p: ChunkerParams) -> Callable[[str], Cutting]:
    def cut(text: str) -> Cutting:
        r = chunk(text, p)
        return Cutting(r.cum_tokens.tolist(), [(c.start_word, c.end_word, c.kind, c.hash) for c in r.chunks])

    return cut


PARAM_SETS = [
    Lmx2Params(token_counter="words/1", min_tokens=4, max_tokens=16, horizon=4, fill_horizon=3, key_tokens=3),
    Lmx2Params(token_counter="chars4/1", min_tokens=8, max_tokens=40, horizon=10, fill_horizon=8, key_tokens=6),
    Lmx2Params(token_counter="words/1", min_tokens=2, max_tokens=5, horizon=1, fill_horizon=1, key_tokens=1),
    Lmx2Params(token_counter="words/1", min_tokens=3, max_tokens=8, horizon=6, fill_horizon=2, key_tokens=5,
               boundary_preference="off"),
    Lmx2Params(token_counter="chars4/1", min_tokens=3, max_tokens=12, horizon=2, fill_horizon=5, key_tokens=4),
]


@settings(max_examples=250)
@given(st.randoms(use_true_random=False), st.sampled_from(PARAM_SETS))
def test_chunks_beyond_the_margin_are_reused(rng, p):
    a, b = make_case(rng)
    runs = shared_runs(a, b)
    assert violations(lmx2_cutter(p), a, b, runs, p.margin) == []


def test_shared_runs_are_equal_words():
    for seed in range(200):
        a, b = make_case(random.Random(seed))
        wa, wb = normalize(render(a)), normalize(render(b))
        for run in shared_runs(a, b):
            length = run.b1 - run.b0
            assert wb.texts[run.b0 : run.b1] == wa.texts[run.a0 : run.a0 + length]
            assert (wb.para[run.b0 : run.b1] == wa.para[run.a0 : run.a0 + length]).all()


def count_violations(cutter, p_margin: int, seeds: range) -> int:
    total = 0
    for seed in seeds:
        a, b = make_case(random.Random(seed))
        total += len(violations(cutter, a, b, shared_runs(a, b), p_margin))
    return total


def checked_chunks(p: Lmx2Params, seeds: range) -> int:
    """How many B chunks the harness compares (a property over empty regions proves nothing)."""
    total = 0
    for seed in seeds:
        a, b = make_case(random.Random(seed))
        cb = lmx2_cutter(p)(render(b))
        for run in shared_runs(a, b):
            r0, r1 = cb.cum[run.b0], cb.cum[run.b1]
            total += sum(1 for s, e, _, _ in cb.chunks if r0 + p.margin <= cb.cum[s] and cb.cum[e] <= r1 - p.margin)
    return total


def test_the_harness_catches_a_key_window_wider_than_the_margin_allows():
    for p in PARAM_SETS:
        assert checked_chunks(p, range(60)) > 200, p
        assert count_violations(lmx2_cutter(p), p.margin, range(60)) == 0
        assert count_violations(widened_key_cutter(p, p.margin), p.margin, range(60)) > 0, p


def counterexample_case() -> tuple[list[Item], list[Item], ChunkerParams]:
    text_a, text_b, params = phase_shift_counterexample()
    wa, wb = normalize(text_a), normalize(text_b)
    inserted = len(COUNTEREXAMPLE_INSERTION.split())
    at = next(k for k in range(len(wa)) if wa.texts[k] != wb.texts[k])
    a = [Item(w, bool(p), k) for k, (w, p) in enumerate(zip(wa.texts, wa.para))]
    origins = list(range(at)) + [None] * inserted + list(range(at, len(wa)))
    b = [Item(w, bool(p), o) for w, p, o in zip(wb.texts, wb.para, origins)]
    for items, words in ((a, wa), (b, wb)):  # the harness renders them again: same words, same flags
        again = normalize(render(items))
        assert again.texts == words.texts and (again.para == words.para).all()
    return a, b, params


def test_tttd_v1_breaks_its_margin_on_the_counterexample_and_lmx2_holds():
    a, b, params = counterexample_case()
    runs = shared_runs(a, b)
    assert len(runs) == 2
    assert violations(tttd_cutter(params), a, b, runs, params.margin)
    lmx2 = Lmx2Params(min_tokens=8, max_tokens=40, horizon=10, fill_horizon=8, key_tokens=6)
    assert violations(lmx2_cutter(lmx2), a, b, runs, lmx2.margin) == []
