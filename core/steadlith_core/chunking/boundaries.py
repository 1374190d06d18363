"""The boundary class of every cut (docs/contract/lmx2-v1.md#classes) and of every chunk's
end (docs/contract/lmx2-v1.md#chunks), from the text or from a scan's per-word flags.

Text only, so every rule and the baseline share them: lmx2-v1 prefers cuts by class,
and every chunk reports the class of its end cut.
"""

from __future__ import annotations

import numpy as np

from ..kernel.segment import SENTENCE_CLOSERS, SENTENCE_ENDS, ends_sentence
from ..vocabulary import BOUNDARIES, END, PARAGRAPH, SENTENCE, WORD
from .canonical import CanonicalText
from .normalize import WordStream, code_points


_MARK_CODE_POINTS = np.array(sorted({ord(ch) for ch in SENTENCE_CLOSERS + "".join(SENTENCE_ENDS)}), dtype=np.uint32)
CLASS_NAMES = (WORD, SENTENCE, PARAGRAPH)  # indexed by the class r (docs/contract/lmx2-v1.md#classes)


def classes_of(para: np.ndarray, sentence_ends: np.ndarray) -> np.ndarray:
    """The class r(c) (docs/contract/lmx2-v1.md#classes) of every cut c in 0..n (uint8), as boundary_classes, from
    the per-word flags the text scan gives: 2 where word c starts a paragraph, else 1
    where word c-1 ends a sentence, else 0."""
    n = para.size
    r = np.zeros(n + 1, dtype=np.uint8)
    r[1:] = sentence_ends  # 0 or 1; whole-array passes: a boolean-mask store is ~5x slower
    np.maximum(r[:n], np.multiply(para, 2, dtype=np.uint8), out=r[:n])
    r[n] = 0
    return r


def boundary_classes(text: str, words: WordStream) -> np.ndarray:
    """The class r(c) (docs/contract/lmx2-v1.md#classes) with the preference on, of every cut c in 0..n (uint8):
    2 where word c starts a paragraph, else 1 where word c-1 ends a sentence (closers
    stripped, docs/contract/tttd-v1.md#snapping), else 0. Entries 0 and n are meaningless (edges have no class).
    Text only, so it serves every rule; only words ending in a mark or a closer are
    tested in Python."""
    n = len(words)
    r = np.zeros(n + 1, dtype=np.uint8)
    if n == 0:
        return r
    last = code_points(text)[words.ends - 1]
    maybe = np.flatnonzero(np.isin(last, _MARK_CODE_POINTS)).tolist()
    src, starts, stops = words.source, words.starts, words.ends
    # one slice per candidate word: WordStream.texts would make a str of every word
    ends = [k + 1 for k in maybe if ends_sentence(src[starts[k]:stops[k]])]
    r[ends] = 1
    r[:n][words.para] = 2
    r[n] = 0
    return r


def cut_boundary(words: WordStream, e: int) -> str:
    """The boundary of a chunk ending at cut `e` (docs/contract/lmx2-v1.md#chunks), from the words alone:
    the same class boundary_classes gives, for one cut (a rule that has no class array,
    like tttd-v1, pays per chunk rather than per word)."""
    if e >= len(words):
        return END
    if words.para[e]:
        return PARAGRAPH
    return SENTENCE if ends_sentence(words[e - 1].text) else WORD  # one word, not WordStream.texts


def cut_boundaries(canon: CanonicalText, ends: np.ndarray) -> list[str]:
    """cut_boundary of every cut in `ends` at once, from the scan's per-word flags."""
    return boundary_names(cut_boundary_codes(canon, ends))


# indexed by codes in one numpy call (the same str objects): faster than a map over them
_BOUNDARY_NAMES = np.array(BOUNDARIES, dtype=object)


def boundary_names(codes: np.ndarray) -> list[str]:
    """The names (vocabulary.BOUNDARIES) of boundary codes."""
    return _BOUNDARY_NAMES[codes].tolist()


def cut_boundary_codes(canon: CanonicalText, ends: np.ndarray) -> np.ndarray:
    """cut_boundaries as indices into vocabulary.BOUNDARIES (uint8)."""
    para = canon._para
    n = para.size
    ends = np.asarray(ends, dtype=np.int64)
    inner = np.minimum(ends, n - 1)
    sentence = canon.sentence_ends_at(np.maximum(ends - 1, 0)) if n else np.zeros(ends.size, dtype=bool)
    code = np.where(para[inner], 0, np.where(sentence, 1, 2)).astype(np.uint8)
    code[ends >= n] = 3
    return code
