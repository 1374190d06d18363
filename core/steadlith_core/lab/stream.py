"""The edited document as a word stream built from the original's, not re-read whole.

An edit's splices touch a few words; only the text around each splice is scanned again
(from the last untouched word before it to the first untouched word after it, so the
paragraph flags at both seams come out right). Every other word keeps the original's
offsets, symbols and token counts, shifted. The words that really changed are found by
trimming what the re-scanned piece shares with the original at both ends: a re-wrap
changes none, a moved paragraph changes two places.

Nothing here is proportional to the document unless asked for: the edited text itself,
and the whole-stream arrays, are built on first use (the from-scratch reference uses
them); the incremental path reads slices (`gather`) and a few words.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from functools import cached_property
from typing import Callable, NamedTuple

import numpy as np

from ..chunking.canonical import compute_symbols
from ..chunking.normalize import WordStream, normalize
from ..chunking.tokens import TokenCounter
from ..kernel.segment import ends_sentence
from .edits import LabDocument, Splice, apply_splices


class ChangeSpan(NamedTuple):
    """Words [a_start, a_end) of the original became words [b_start, b_end) of the edit."""

    a_start: int
    a_end: int
    b_start: int
    b_end: int


class _Piece(NamedTuple):
    b_start: int  # first word of the piece in the edited stream
    a_start: int  # the original's words it stands for: [a_start, a_end)
    a_end: int
    shift: int  # edited code point = original code point + shift (unchanged pieces) or piece offset (new)
    words: WordStream | None  # None: the original's words, unchanged; else offsets into the piece's text
    symbols: np.ndarray | None
    texts: tuple[str, ...] = ()
    sentence_end: np.ndarray | None = None  # whether each word ends a sentence (docs/contract/tttd-v1.md#snapping)

    @property
    def size(self) -> int:
        return self.a_end - self.a_start if self.words is None else len(self.words)


class EditedStream:
    """The edited text's words, and the spans where words changed."""

    def __init__(self, doc: LabDocument, splices: tuple[Splice, ...]):
        self.doc = doc
        self.splices = splices
        self._segments = self._text_segments()
        self.pieces = self._pieces()
        self._piece_starts = [p.b_start for p in self.pieces]
        last = self.pieces[-1]
        self.n = last.b_start + last.size
        self.spans = tuple(self._changed_spans())
        self._tokens: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    @property
    def words_changed(self) -> bool:
        return bool(self.spans)

    # -- the edited text, by pieces ----------------------------------------------------

    def _text_segments(self) -> list[tuple[int, str, int, int]]:
        """(edited offset, source string, offset in it, length): the edited text as runs of
        the original and of inserted strings."""
        out, b, at = [], 0, 0
        text = self.doc.text
        for s in self.splices:
            for src, lo, hi in ((text, at, s.start), (s.text, 0, len(s.text))):
                if hi > lo:
                    out.append((b, src, lo, hi - lo))
                    b += hi - lo
            at = s.end
        if len(text) > at:
            out.append((b, text, at, len(text) - at))
        return out

    def text_slice(self, start: int, end: int) -> str:
        """Code points [start, end) of the edited text, without building all of it."""
        segments = self._segments
        k = max(0, bisect_right([s[0] for s in segments], start) - 1)
        out = []
        while k < len(segments) and segments[k][0] < end:
            b, src, lo, length = segments[k]
            a, z = max(start, b), min(end, b + length)
            if z > a:
                out.append(src[lo + a - b:lo + z - b])
            k += 1
        return "".join(out)

    @cached_property
    def text(self) -> str:
        return apply_splices(self.doc.text, self.splices)

    # -- building ------------------------------------------------------------------------

    def _regions(self) -> list[list[int]]:
        """[first word, end word, first code point, end code point, growth] of each
        stretch of the original to scan again; splices whose stretches meet are merged."""
        doc = self.doc
        out: list[list[int]] = []
        for s in self.splices:
            lo = bisect_left(doc.ends, s.start)  # first word that may touch the splice
            hi = bisect_right(doc.starts, s.end)  # first word wholly after it
            lo_c, hi_c = max(lo - 1, 0), min(hi + 1, doc.n)  # one untouched word each side, for the seams
            cs = min(s.start, doc.starts[lo_c])
            ce = max(s.end, doc.ends[hi_c - 1])
            growth = len(s.text) - (s.end - s.start)
            if out and lo_c < out[-1][1]:
                last = out[-1]
                last[1], last[3], last[4] = max(last[1], hi_c), max(last[3], ce), last[4] + growth
            else:
                out.append([lo_c, hi_c, cs, ce, growth])
        return out

    def _pieces(self) -> list[_Piece]:
        doc = self.doc
        pieces: list[_Piece] = []
        a_at, b_at, shift = 0, 0, 0
        for lo, hi, cs, ce, growth in self._regions():
            if lo > a_at:
                pieces.append(_Piece(b_at, a_at, lo, shift, None, None))
                b_at += lo - a_at
            start = cs + shift
            piece_text = self.text_slice(start, ce + shift + growth)
            local = normalize(piece_text)
            symbols = np.array(compute_symbols(local), dtype=np.uint64)
            para = np.array(local.para, dtype=bool)
            if lo > 0:  # the piece opens with an untouched word, whose flag depends on text before the piece
                para[0] = bool(doc.words.para[lo])
                symbols[0] = doc.symbols[lo]
            words = WordStream(piece_text, local.starts, local.ends, para)
            texts = tuple(piece_text.split())
            pieces.append(_Piece(b_at, lo, hi, start, words, symbols, texts,
                                 np.fromiter(map(ends_sentence, texts), dtype=bool, count=len(texts))))
            b_at += len(words)
            a_at = hi
            shift += growth
        if a_at < doc.n:
            pieces.append(_Piece(b_at, a_at, doc.n, shift, None, None))
        return pieces

    def _changed_spans(self):
        doc = self.doc
        for p in self.pieces:
            if p.words is None:
                continue
            m, k = p.size, p.a_end - p.a_start

            def same(i: int, j: int) -> bool:  # new word i is the original's word j
                return p.symbols[i] == doc.symbols[j] and p.texts[i] == doc.word(j)

            head = 0
            while head < min(m, k) and same(head, p.a_start + head):
                head += 1
            tail = 0
            while tail < min(m, k) - head and same(m - 1 - tail, p.a_end - 1 - tail):
                tail += 1
            if head + tail < max(m, k):
                yield ChangeSpan(p.a_start + head, p.a_end - tail, p.b_start + head, p.b_start + m - tail)

    # -- reading -------------------------------------------------------------------------

    def _piece_at(self, k: int) -> _Piece:
        return self.pieces[bisect_right(self._piece_starts, k) - 1]

    def word(self, k: int) -> str:
        p = self._piece_at(k)
        return self.doc.word(k - p.b_start + p.a_start) if p.words is None else p.texts[k - p.b_start]

    def gather(self, original: np.ndarray, new: Callable[[_Piece], np.ndarray], lo: int = 0,
               hi: int | None = None, *, shift: bool = False) -> np.ndarray:
        """Edited words [lo, hi) of a per-word array: `original` (offsets moved by the
        piece's shift when `shift`) where the words are the original's, `new(piece)` else."""
        hi = self.n if hi is None else hi
        parts = []
        for p in self.pieces[max(0, bisect_right(self._piece_starts, lo) - 1):]:
            if p.b_start >= hi:
                break
            a, z = max(lo, p.b_start) - p.b_start, min(hi, p.b_start + p.size) - p.b_start
            if p.words is None:
                part = original[p.a_start + a:p.a_start + z]
                parts.append(part + p.shift if shift else part)
            else:
                part = new(p)[a:z]
                parts.append(part + p.shift if shift else part)
        return np.concatenate(parts) if parts else original[:0]

    def symbols_of(self, lo: int = 0, hi: int | None = None) -> np.ndarray:
        return self.gather(self.doc.symbols, lambda p: p.symbols, lo, hi)

    def para_of(self, lo: int = 0, hi: int | None = None) -> np.ndarray:
        return self.gather(self.doc.words.para, lambda p: p.words.para, lo, hi)

    def sentence_end_of(self, lo: int = 0, hi: int | None = None) -> np.ndarray:
        return self.gather(self.doc.sentence_end, lambda p: p.sentence_end, lo, hi)

    def classes_of(self, lo: int, hi: int) -> np.ndarray:
        """The boundary class (boundaries.boundary_classes) of every cut between words lo..hi-1,
        as if those words were a document: 2 before a paragraph start, else 1 after a
        sentence end, else 0; its edge cuts 0 and hi - lo are 0 or meaningless."""
        m = hi - lo
        r = np.zeros(m + 1, dtype=np.uint8)
        if m:
            r[1:m + 1] = self.sentence_end_of(lo, hi)
            r[:m][self.para_of(lo, hi)] = 2
            r[m] = 0
        return r

    def starts_of(self, lo: int = 0, hi: int | None = None) -> np.ndarray:
        return self.gather(self.doc.words.starts, lambda p: p.words.starts, lo, hi, shift=True)

    def ends_of(self, lo: int = 0, hi: int | None = None) -> np.ndarray:
        return self.gather(self.doc.words.ends, lambda p: p.words.ends, lo, hi, shift=True)

    @cached_property
    def symbols(self) -> np.ndarray:
        return self.symbols_of()

    @cached_property
    def para(self) -> np.ndarray:
        return self.para_of()

    def tokens(self, counter: TokenCounter, original_tokens: np.ndarray,
               original_cum: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(tokens of each word, cumulative tokens) under `counter`; the original's counts
        are reused for every unchanged piece."""
        got = self._tokens.get(counter.id)
        if got is None:
            counts = {id(p): counter.count(p.words) for p in self.pieces if p.words is not None}
            tok = self.gather(original_tokens, lambda p: counts[id(p)])
            cum_parts, total = [np.zeros(1, dtype=np.int64)], 0
            for p in self.pieces:
                if p.words is None:
                    part = original_cum[p.a_start + 1:p.a_end + 1] + (total - int(original_cum[p.a_start]))
                else:
                    part = np.cumsum(counts[id(p)]) + total
                cum_parts.append(part)
                total = int(part[-1])
            got = self._tokens[counter.id] = (tok, np.concatenate(cum_parts))
        return got

    def token_view(self, counter: TokenCounter, original_tokens: np.ndarray,
                   original_cum: np.ndarray) -> "TokenView":
        """Cumulative tokens of the edited words, read where needed (TokenView)."""
        key = ("view", counter.id)
        view = self._tokens.get(key)
        if view is None:
            view = self._tokens[key] = TokenView(self, counter, original_tokens, original_cum)
        return view

    def source(self, lo: int, hi: int) -> tuple[str, int]:
        """The edited text of words [lo, hi) and where it starts."""
        start = int(self.starts_of(lo, lo + 1)[0])
        return self.text_slice(start, int(self.ends_of(hi - 1, hi)[0])), start

    def canonical(self, s: int, e: int, original_canonical) -> bytes:
        """The canonical UTF-8 (docs/contract/normalizer.md#canonical-text) of edited words [s, e): slices of the original's
        canonical text where the words are the original's, joined words elsewhere."""
        out = []
        for p in self.pieces[bisect_right(self._piece_starts, s) - 1:]:
            if p.b_start >= e:
                break
            a, z = max(s, p.b_start) - p.b_start, min(e, p.b_start + p.size) - p.b_start
            if p.words is None:
                para = self.doc.words.para
                if out:
                    out.append(b"\n\n" if para[p.a_start + a] else b" ")
                lo = int(original_canonical.starts_of(np.array([p.a_start + a]))[0])
                out.append(original_canonical.data[lo:int(original_canonical.byte_ends[p.a_start + z - 1])])
            else:
                para = p.words.para
                for i in range(a, z):
                    if out:
                        out.append(b"\n\n" if para[i] else b" ")
                    out.append(p.texts[i].encode("utf-8", "surrogatepass"))
        return b"".join(out)


class TokenView:
    """The edited stream's cumulative tokens (cum[k]: tokens of words [0, k), k in 0..n)
    without building the array: each unchanged piece reads the original's, offset; each
    re-scanned piece has its own. Indexing, slicing and searchsorted cost a lookup of
    the piece, so an edit's work does not grow with the document."""

    def __init__(self, stream: EditedStream, counter: TokenCounter, original_tokens: np.ndarray,
                 original_cum: np.ndarray):
        self.pieces = stream.pieces
        self.n = stream.n
        self._starts = [p.b_start for p in self.pieces]
        self._a_tok, self._a_cum = original_tokens, original_cum
        self._local: list[tuple[np.ndarray, np.ndarray] | None] = []  # (tokens, cum from 0) of new pieces
        self._offsets: list[int] = []  # what to add to the piece's own cum values
        self.bases: list[int] = []  # cum at each piece's first word
        total = 0
        for p in self.pieces:
            self.bases.append(total)
            if p.words is None:
                self._local.append(None)
                self._offsets.append(total - int(original_cum[p.a_start]))
                total += int(original_cum[p.a_end]) - int(original_cum[p.a_start])
            else:
                tok = counter.count(p.words)
                cum = np.zeros(tok.size + 1, dtype=np.int64)
                np.cumsum(tok, out=cum[1:])
                self._local.append((tok, cum))
                self._offsets.append(total)
                total += int(cum[-1])
        self.total = total

    def _segment(self, j: int) -> np.ndarray:
        """Piece j's own cum values at its words and its end (size + 1 values, not offset)."""
        p = self.pieces[j]
        local = self._local[j]
        return self._a_cum[p.a_start:p.a_end + 1] if local is None else local[1]

    def __getitem__(self, k: int) -> int:
        if k < 0:
            k += self.n + 1
        if k >= self.n:
            return self.total
        j = bisect_right(self._starts, k) - 1
        p = self.pieces[j]
        return int(self._segment(j)[k - p.b_start]) + self._offsets[j]

    def __len__(self) -> int:
        return self.n + 1

    def searchsorted(self, value: int, side: str = "left") -> int:
        """As numpy's over the whole cum array (n + 1 values): n + 1 past the total."""
        # the piece whose values reach `value`: the search never runs past its end, save
        # in the last piece, where it gives n + 1 as numpy does
        j = max(0, (bisect_right(self.bases, value) if side == "right" else bisect_left(self.bases, value)) - 1)
        r = int(np.searchsorted(self._segment(j), value - self._offsets[j], side))
        return self.pieces[j].b_start + r

    def _overlaps(self, lo: int, hi: int):
        """(j, piece, a, z) for each piece j holding words of [lo, hi): its words a..z."""
        for j in range(max(0, bisect_right(self._starts, lo) - 1), len(self.pieces)):
            p = self.pieces[j]
            if p.b_start >= hi:
                break
            a, z = max(lo, p.b_start) - p.b_start, min(hi, p.b_start + p.size) - p.b_start
            if z > a:
                yield j, p, a, z

    def cum(self, lo: int, hi: int) -> np.ndarray:
        """cum[lo:hi] for 0 <= lo <= hi <= n + 1."""
        parts = [self._segment(j)[a:z] + self._offsets[j] for j, _, a, z in self._overlaps(lo, hi)]
        if hi == self.n + 1 and lo <= self.n:
            parts.append(np.array([self.total], dtype=np.int64))
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def tokens(self, lo: int, hi: int) -> np.ndarray:
        """Tokens of words [lo, hi)."""
        parts = []
        for j, p, a, z in self._overlaps(lo, hi):
            local = self._local[j]
            parts.append(self._a_tok[p.a_start + a:p.a_start + z] if local is None else local[0][a:z])
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
