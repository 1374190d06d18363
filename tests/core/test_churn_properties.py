"""Randomized churn tests: sequences of edits (a Hypothesis state machine) and random
version pairs, checked against simple oracles.

These are evidence, not proof. They check that statuses partition the chunks, reused
pairs have identical canonical text, shifted chunks hold no changed word, the alignment
is monotone, and that the locality check reports exactly what its definition says. They
do NOT show that tttd-v1 is local: it is not (test_counterexample.py), and a run of
passing samples must never be quoted as if it were.

Small domains on purpose (bidict style): a dozen words, tiny windows and masks, so
collisions, repeated text, oversize words and paragraph flips happen often.
"""

from __future__ import annotations

from bisect import bisect_right

from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from steadlith_core import ChunkerParams, Comparison, chunk, compare
from steadlith_core.vocabulary import STATUSES_A, STATUSES_B
from steadlith_core.comparison.diff import EQUAL, check_ops

VOCAB = ["a", "be", "cut", "edit.", "shift", "Phase", "window!", "re-embed", "internationalization", "日本語", "🚀", "x"]

Word = tuple[str, bool]  # (text, starts a paragraph)

word_st = st.tuples(st.sampled_from(VOCAB), st.sampled_from([False, False, False, True]))
doc_st = st.lists(word_st, max_size=160)


@st.composite
def params_st(draw) -> ChunkerParams:
    min_tokens = draw(st.integers(1, 10))
    snapping = draw(st.booleans())
    return ChunkerParams(
        window_words=draw(st.integers(1, 4)),
        primary_mask=(pm := draw(st.sampled_from([0x7, 0xF, 0x1F]))), primary_remainder=pm,
        backup_mask=(bm := draw(st.sampled_from([0x1, 0x3]))), backup_remainder=bm,
        token_counter=draw(st.sampled_from(["chars4/1", "words/1"])),
        min_tokens=min_tokens, max_tokens=min_tokens + draw(st.integers(0, 24)),
        snap_mode="paragraph-sentence/1" if snapping else "off",
        snap_window_words=draw(st.integers(1, 3)) if snapping else 0,
    )


def render(words: list[Word]) -> str:
    """Text whose word stream is exactly `words` (the first word never starts a paragraph)."""
    out = []
    for k, (w, para) in enumerate(words):
        if k:
            out.append("\n\n" if para else " ")
        out.append(w)
    return "".join(out)


# -- the oracle ---------------------------------------------------------------------------


def check_comparison(c: Comparison) -> None:
    a, b, ops = c.a, c.b, c.ops
    wa = list(zip(a.words.texts, a.words.para.tolist()))
    wb = list(zip(b.words.texts, b.words.para.tolist()))
    check_ops(ops, len(wa), len(wb))
    changed_a, changed_b = set(), set()
    for tag, a0, a1, b0, b1 in ops:
        if tag == EQUAL:
            assert wa[a0:a1] == wb[b0:b1]
        else:
            changed_a.update(range(a0, a1))
            changed_b.update(range(b0, b1))
    equal = [op for op in ops if op.tag == EQUAL]

    def holder(chunk_, side) -> object:
        """The equal op holding every word of the chunk, if one does."""
        for op in equal:
            lo, hi = (op.a_start, op.a_end) if side == "a" else (op.b_start, op.b_end)
            if lo <= chunk_.start_word and chunk_.end_word <= hi:
                return op
        return None

    # statuses partition the chunks
    assert len(c.status_a) == len(a.chunks) and len(c.status_b) == len(b.chunks)
    assert set(c.status_a) <= set(STATUSES_A) and set(c.status_b) <= set(STATUSES_B)

    # the alignment: monotone, one-to-one, identical text and hash
    assert all(x[0] < y[0] and x[1] < y[1] for x, y in zip(c.alignment, c.alignment[1:]))
    for i, j in c.alignment:
        assert a.chunks[i].text == b.chunks[j].text and a.chunks[i].hash == b.chunks[j].hash
    assert {j for _, j in c.alignment} == {j for j, s in enumerate(c.status_b) if s == "reused"}
    assert {i for i, _ in c.alignment} == {i for i, s in enumerate(c.status_a) if s == "reused"}

    a_ranges = {(ch.start_word, ch.end_word) for ch in a.chunks}
    for side, chunks, statuses, changed, gone in (("b", b.chunks, c.status_b, changed_b, "new"),
                                                  ("a", a.chunks, c.status_a, changed_a, "removed")):
        for ch, status in zip(chunks, statuses):
            words = set(range(ch.start_word, ch.end_word))
            op = holder(ch, side)
            if status == "shifted":
                assert not words & changed and op is not None
            elif status == gone:
                assert words <= changed
            elif status == "edited":
                assert not words <= changed and (words & changed or op is None)
            if side == "b" and op is not None:
                shift = op.a_start - op.b_start
                mapped = (ch.start_word + shift, ch.end_word + shift)
                # a B chunk whose words were an A chunk's exact words is always reused
                if mapped in a_ranges:
                    assert status == "reused"

    # phase-shift regions are the maximal runs of shifted B chunks
    runs, j = [], 0
    while j < len(c.status_b):
        if c.status_b[j] == "shifted":
            k = j
            while k < len(c.status_b) and c.status_b[k] == "shifted":
                k += 1
            runs.append((j, k))
            j = k
        else:
            j += 1
    assert [r.b_chunks for r in c.phase_shift_regions] == runs
    cum_b = b.cum_tokens
    for r in c.phase_shift_regions:
        # the same words, except A words deleted exactly at a B chunk boundary inside the run
        kept = [a.words.texts[w] for w in range(*r.a_words) if w not in changed_a]
        assert kept == list(b.words.texts[slice(*r.b_words)])
        later = [j for j in range(r.b_chunks[1], len(b.chunks)) if c.status_b[j] == "reused"]
        assert r.resync_b == (later[0] if later else None)
        # the distances run from the edits inside the run of not-reused chunks holding it
        run0 = max([j + 1 for j in range(r.b_chunks[0]) if c.status_b[j] == "reused"], default=0)
        run1 = later[0] if later else len(b.chunks)
        assert r.run_b_chunks == (run0, run1)
        w0, w1 = b.chunks[run0].start_word, b.chunks[run1 - 1].end_word
        inside = [op for op in c.ops if op.tag != "equal" and w0 <= op.b_start and op.b_end <= w1]
        edit = inside[-1] if inside else r.after_edit
        base = int(cum_b[edit.b_end]) if edit else 0
        end = int(cum_b[b.chunks[r.resync_b].start_word]) if later else int(cum_b[-1])
        assert r.resync_distance_tokens == end - base >= 0
        lead = int(cum_b[inside[0].b_start]) - int(cum_b[w0]) if inside else 0
        assert r.starts_before_edit_tokens == lead >= 0
        # A's side is shown as the span of the A chunks holding the region's words
        assert r.a_chunk_words == (a.chunks[r.a_chunks[0]].start_word, a.chunks[r.a_chunks[1] - 1].end_word)
        assert r.a_chunk_words[0] <= r.a_words[0] and r.a_words[1] <= r.a_chunk_words[1]

    # the locality check, recomputed from its definition (exact counter tokens)
    margin = a.params.margin
    expected = []
    for op in equal:
        t0, t1 = int(cum_b[op.b_start]), int(cum_b[op.b_end])
        if t1 - t0 >= 2 * margin:
            for ch in b.chunks:
                inside = t0 + margin <= cum_b[ch.start_word] and cum_b[ch.end_word] <= t1 - margin
                if inside and c.status_b[ch.index] != "reused":
                    expected.append(ch.index)
    assert [v.b_chunk for v in c.violations] == expected
    assert c.locality_held == (not expected)

    s = c.summary
    assert s.reused_tokens + s.tokens_to_embed == s.tokens_b == int(cum_b[-1])
    assert s.changed_words_a == len(changed_a) and s.changed_words_b == len(changed_b)
    bs = c.baseline.summary
    assert bs.reused_tokens + bs.tokens_to_embed == bs.tokens_b == s.tokens_b


def compare_words(x: list[Word], y: list[Word], params: ChunkerParams) -> Comparison:
    c = compare(chunk(render(x), params), chunk(render(y), params))
    check_comparison(c)
    return c


# -- random pairs -------------------------------------------------------------------------


@given(doc_st, doc_st, params_st())
def test_random_pairs(x, y, params):
    compare_words(x, y, params)


@given(doc_st, st.integers(0, 200), st.lists(word_st, min_size=1, max_size=5), params_st())
@example([("internationalization", False)] * 40, 3, [("x", False)], ChunkerParams(
    window_words=1, min_tokens=2, max_tokens=4, primary_mask=0x7, primary_remainder=0x7,
    backup_mask=0x1, backup_remainder=0x1))
def test_one_insertion(x, at, inserted, params):
    x = [(w, para and k > 0) for k, (w, para) in enumerate(x)]  # as rendered: word 0 starts nothing
    at = min(at, len(x))
    y = x[:at] + inserted + x[at:]
    c = compare_words(x, y, params)
    assert c.summary.changed_words_a == 0
    if params.snapping:
        return
    # tttd-v1 only looks back: a cut decided from words before the insertion point is
    # the same in B, and so is every chunk of that prefix.
    cum = c.a.cum_tokens
    for ch in c.a.chunks:
        if ch.kind == "primary":
            horizon = ch.end_word
        elif ch.kind == "end":
            break
        else:  # backup or hard: decided when word i would overflow max_tokens
            i = int(bisect_right(cum.tolist(), int(cum[ch.start_word]) + params.max_tokens)) - 1
            horizon = max(i, ch.start_word + 1) + 1
        if horizon > at:
            break
        assert c.status_a[ch.index] == "reused"


@given(doc_st, params_st())
def test_identical_versions(x, params):
    c = compare_words(x, x, params)
    assert set(c.status_b) <= {"reused"} and c.phase_shift_regions == () and c.locality_held


# -- sequences of edits ---------------------------------------------------------------------


class ChurnMachine(RuleBasedStateMachine):
    """Each rule edits the current version; every step compares previous vs current."""

    @initialize(words=doc_st, params=params_st())
    def start(self, words, params):
        self.params = params
        self.prev: list[Word] = list(words)
        self.words: list[Word] = list(words)

    def _edit(self, new: list[Word]) -> None:
        self.prev, self.words = self.words, new

    @rule(at=st.integers(0, 400), new=st.lists(word_st, min_size=1, max_size=8))
    def insert(self, at, new):
        at = at % (len(self.words) + 1)
        self._edit(self.words[:at] + new + self.words[at:])

    @precondition(lambda self: self.words)
    @rule(at=st.integers(0, 400), size=st.integers(1, 6))
    def delete(self, at, size):
        at = at % len(self.words)
        self._edit(self.words[:at] + self.words[at + size:])

    @precondition(lambda self: self.words)
    @rule(at=st.integers(0, 400), size=st.integers(1, 4), new=st.lists(word_st, min_size=1, max_size=4))
    def replace(self, at, size, new):
        at = at % len(self.words)
        self._edit(self.words[:at] + new + self.words[at + size:])

    @precondition(lambda self: len(self.words) > 1)
    @rule(at=st.integers(1, 400))
    def reflow(self, at):
        at = 1 + at % (len(self.words) - 1)
        w = list(self.words)
        w[at] = (w[at][0], not w[at][1])
        self._edit(w)

    @precondition(lambda self: len(self.words) > 2)
    @rule(at=st.integers(0, 400), size=st.integers(1, 12), to=st.integers(0, 400))
    def move(self, at, size, to):
        at = at % len(self.words)
        block = self.words[at:at + size]
        rest = self.words[:at] + self.words[at + size:]
        to = to % (len(rest) + 1)
        self._edit(rest[:to] + block + rest[to:])

    @invariant()
    def comparisons_hold(self):
        if hasattr(self, "words"):
            compare_words(self.prev, self.words, self.params)
            compare_words(self.words, self.prev, self.params)


TestChurnMachine = ChurnMachine.TestCase
TestChurnMachine.settings = settings(
    settings.default, max_examples=max(10, settings.default.max_examples // 3), stateful_step_count=12)
