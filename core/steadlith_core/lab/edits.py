"""The lab's edit model: edits a writer makes, drawn from the document's own words.

An `Edit` is a small frozen value (kind, position, length, seed). It holds no text:
`splices(doc)` derives the character replacements from the document it is applied to,
so the same value re-applies exactly to the same text, and `describe()` names it in one
line. `position` is a word index (wrapped into the document), `length` a count of words
(word-range edits), paragraphs (a move's reach) or a cap on a donor sentence's words,
and `seed` chooses what is inserted: a sentence, a paragraph or a run of words copied
from elsewhere in the same document, so inserted text reads like the rest.
"""

from __future__ import annotations

import random
from array import array
from bisect import bisect_right
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..chunking.canonical import CanonicalText
from ..chunking.pipeline import Pipeline
from ..errors import SteadlithError

FIX_WORD = "fix-word"
INSERT_SENTENCE = "insert-sentence"
DELETE_SENTENCE = "delete-sentence"
INSERT_PARAGRAPH = "insert-paragraph"
DELETE_PARAGRAPH = "delete-paragraph"
SPLIT_PARAGRAPH = "split-paragraph"
MERGE_PARAGRAPHS = "merge-paragraphs"
MOVE_PARAGRAPH = "move-paragraph"
REWRAP_PARAGRAPH = "rewrap-paragraph"
INSERT_WORDS = "insert-words"
DELETE_WORDS = "delete-words"

EDIT_KINDS = (FIX_WORD, INSERT_SENTENCE, DELETE_SENTENCE, INSERT_PARAGRAPH, DELETE_PARAGRAPH, SPLIT_PARAGRAPH,
              MERGE_PARAGRAPHS, MOVE_PARAGRAPH, REWRAP_PARAGRAPH, INSERT_WORDS, DELETE_WORDS)

# How often each kind is drawn: word fixes and sentence edits dominate real revisions;
# structural edits are rarer. The word-range edits are the uniform, unrealistic control.
KIND_WEIGHTS = {FIX_WORD: 24, INSERT_SENTENCE: 12, DELETE_SENTENCE: 10, INSERT_PARAGRAPH: 6, DELETE_PARAGRAPH: 5,
                SPLIT_PARAGRAPH: 5, MERGE_PARAGRAPHS: 5, MOVE_PARAGRAPH: 4, REWRAP_PARAGRAPH: 8, INSERT_WORDS: 11,
                DELETE_WORDS: 10}

MAX_DONOR_WORDS = 80  # a copied sentence is cut here: a run-on "sentence" of a code block is not one
MAX_RANGE_WORDS = 400


class LabError(SteadlithError, ValueError):
    """The lab cannot run on what it was given (no words, an unknown edit kind, …)."""


class Splice(NamedTuple):
    """Replace code points [start, end) of the text with `text`."""

    start: int
    end: int
    text: str


def _int_array(values: np.ndarray) -> array:
    out = array("q")
    out.frombytes(values.astype(np.int64, copy=False).tobytes())
    return out


class LabDocument:
    """One text's words, sentences and paragraphs, computed once: every edit reads them.

    They are the text stages of `pipeline`'s document for the text (one kernel scan:
    words, symbols, canonical text, classes), the same arrays the lab's chunkers chunk
    the original from, so the document is scanned and held once, not once here and
    once in the pipeline."""

    def __init__(self, text: str, pipeline: Pipeline | None = None):
        if not isinstance(text, str):
            raise TypeError(f"the lab takes a str, not {type(text).__name__}")
        self.text = text
        # the lab reads its document's symbols and whole canonical text, however long it is
        self.pipeline = pipeline if pipeline is not None else Pipeline(max_documents=2, str_utf8=False)
        stages = self.pipeline.document(text)
        self.words = stages.words
        self.n = len(self.words)
        if self.n == 0:
            raise LabError("the document has no words: there is nothing to edit")
        self.symbols = stages.symbols
        # the canonical UTF-8 of every word (docs/contract/normalizer.md#canonical-text) as the scan wrote it:
        # chunks away from an edit are hashed from slices of it
        self.canonical: CanonicalText = stages.canonical
        # Python ints on indexing (edits and splices hold them, bisect reads them), 8 bytes a
        # word: a list of int objects would take about 36, twice, for a whole document
        self.starts = _int_array(self.words.starts)
        self.ends = _int_array(self.words.ends)
        classes = stages.classes
        # whether each word ends a sentence (docs/contract/tttd-v1.md#snapping), to class the edited stream's cuts.
        # Before a paragraph start it reads False: the class there is 2 whatever it is, and
        # an edit never takes a paragraph start away from a word it does not re-scan.
        self.sentence_end = classes[1:] == 1
        head = classes[: self.n].copy()  # the pipeline's classes are shared and read-only
        head[0] = 2
        self.paragraph_starts = np.flatnonzero(head == 2).tolist()
        self.sentence_starts = np.flatnonzero(head >= 1).tolist()

    def word(self, k: int) -> str:
        return self.text[self.starts[k]:self.ends[k]]

    def span(self, k: int, starts: list[int]) -> tuple[int, int]:
        """The [first, end) words of the sentence or paragraph (per `starts`) holding word k."""
        i = bisect_right(starts, k) - 1
        return starts[i], starts[i + 1] if i + 1 < len(starts) else self.n

    def paragraph(self, k: int) -> tuple[int, int]:
        return self.span(k, self.paragraph_starts)

    def sentence(self, k: int) -> tuple[int, int]:
        return self.span(k, self.sentence_starts)

    def joined(self, a: int, b: int) -> str:
        return " ".join(self.word(k) for k in range(a, b))

    def source(self, a: int, b: int) -> str:
        """Words [a, b) as they stand in the text, line breaks included."""
        return self.text[self.starts[a]:self.ends[b - 1]]


@dataclass(frozen=True)
class Edit:
    kind: str
    position: int
    length: int = 1
    seed: int = 0

    def __post_init__(self) -> None:
        if self.kind not in EDIT_KINDS:
            raise LabError(f"unknown edit kind {self.kind!r}; known: {', '.join(EDIT_KINDS)}")
        for name in ("position", "length", "seed"):
            value = getattr(self, name)
            if type(value) is not int or value < 0:
                raise LabError(f"edit {name} must be an integer >= 0, got {value!r}")

    def describe(self) -> str:
        """One line: what the edit does, where (word index) and with which seed."""
        at = f"word {self.position:,}"
        what = {
            FIX_WORD: f"replace the word at {at}",
            INSERT_SENTENCE: f"insert a sentence before the sentence holding {at}",
            DELETE_SENTENCE: f"delete the sentence holding {at}",
            INSERT_PARAGRAPH: f"insert a paragraph before the paragraph holding {at}",
            DELETE_PARAGRAPH: f"delete the paragraph holding {at}",
            SPLIT_PARAGRAPH: f"split the paragraph holding {at}",
            MERGE_PARAGRAPHS: f"merge the paragraph holding {at} with the next",
            MOVE_PARAGRAPH: f"move the paragraph holding {at} by up to {self.length} paragraphs",
            REWRAP_PARAGRAPH: f"re-wrap the lines of the paragraph holding {at}",
            INSERT_WORDS: f"insert {_words(self.length)} before {at}",
            DELETE_WORDS: f"delete {_words(self.length)} from {at}",
        }[self.kind]
        return f"{self.kind}: {what} (seed {self.seed})"

    def apply(self, text: str | LabDocument) -> str:
        """The edited text. Pure: the same edit on the same text gives the same result."""
        doc = text if isinstance(text, LabDocument) else LabDocument(text)
        return apply_splices(doc.text, self.splices(doc))

    def splices(self, doc: LabDocument) -> tuple[Splice, ...]:
        """The character replacements this edit makes in `doc`, sorted, not overlapping."""
        return _MAKERS[self.kind](self, doc, self.position % doc.n, random.Random(self.seed))

    def to_dict(self) -> dict:
        return {"kind": self.kind, "position": self.position, "length": self.length, "seed": self.seed,
                "description": self.describe()}


def _words(count: int) -> str:
    return f"{count} word" if count == 1 else f"{count} words"


def apply_splices(text: str, splices: tuple[Splice, ...]) -> str:
    out, at = [], 0
    for s in splices:
        out.append(text[at:s.start])
        out.append(s.text)
        at = s.end
    out.append(text[at:])
    return "".join(out)


# -- what each kind does -------------------------------------------------------------------


def _fix_word(e: Edit, doc: LabDocument, k: int, rng: random.Random) -> tuple[Splice, ...]:
    old = doc.word(k)
    for _ in range(16):
        new = doc.word(rng.randrange(doc.n))
        if new != old:
            break
    else:  # a document of one repeated word: the fix is a visible typo correction
        new = old + "s"
    return (Splice(doc.starts[k], doc.ends[k], new),)


def _donor_sentence(doc: LabDocument, rng: random.Random, cap: int) -> str:
    a, b = doc.sentence(rng.randrange(doc.n))
    return doc.joined(a, min(b, a + cap))


def _insert_sentence(e: Edit, doc: LabDocument, k: int, rng: random.Random) -> tuple[Splice, ...]:
    s, _ = doc.sentence(k)
    donor = _donor_sentence(doc, rng, MAX_DONOR_WORDS)
    return (Splice(doc.starts[s], doc.starts[s], donor + " "),)


def _delete_words_span(doc: LabDocument, a: int, b: int) -> tuple[Splice, ...]:
    """Delete words [a, b) with the whitespace before them (after them at the start);
    never every word: a document keeps its first one."""
    if a == 0 and b >= doc.n:
        a = 1
        if a >= b:
            return ()
    if a > 0:
        return (Splice(doc.ends[a - 1], doc.ends[b - 1], ""),)
    return (Splice(doc.starts[0], doc.starts[b], ""),)


def _delete_sentence(e: Edit, doc: LabDocument, k: int, rng: random.Random) -> tuple[Splice, ...]:
    s, t = doc.sentence(k)
    ps, pe = doc.paragraph(k)
    if s == ps and t < pe:  # the paragraph's first sentence: its break stays with the next one
        return (Splice(doc.starts[s], doc.starts[t], ""),)
    return _delete_words_span(doc, s, t)


def _insert_paragraph(e: Edit, doc: LabDocument, k: int, rng: random.Random) -> tuple[Splice, ...]:
    ps, _ = doc.paragraph(k)
    da, db = doc.paragraph(rng.randrange(doc.n))
    return (Splice(doc.starts[ps], doc.starts[ps], doc.source(da, db) + "\n\n"),)


def _delete_paragraph(e: Edit, doc: LabDocument, k: int, rng: random.Random) -> tuple[Splice, ...]:
    ps, pe = doc.paragraph(k)
    return _delete_words_span(doc, ps, pe)


def _split_paragraph(e: Edit, doc: LabDocument, k: int, rng: random.Random) -> tuple[Splice, ...]:
    ps, pe = doc.paragraph(k)
    inside = [c for c in doc.sentence_starts[bisect_right(doc.sentence_starts, ps):] if c < pe]
    if inside:  # at the sentence start nearest to word k
        c = min(inside, key=lambda c: (abs(c - k), c))
    elif pe - ps >= 2:
        c = min(max(k, ps + 1), pe - 1)
    else:
        return ()
    return (Splice(doc.ends[c - 1], doc.starts[c], "\n\n"),)


def _merge_paragraphs(e: Edit, doc: LabDocument, k: int, rng: random.Random) -> tuple[Splice, ...]:
    ps, pe = doc.paragraph(k)
    if pe < doc.n:
        return (Splice(doc.ends[pe - 1], doc.starts[pe], " "),)
    if ps > 0:
        return (Splice(doc.ends[ps - 1], doc.starts[ps], " "),)
    return ()


def _move_paragraph(e: Edit, doc: LabDocument, k: int, rng: random.Random) -> tuple[Splice, ...]:
    starts = doc.paragraph_starts
    count = len(starts)
    i = bisect_right(starts, k) - 1
    reach = max(1, e.length)
    # targets are gaps 0..count (before paragraph j, or the end); gaps i and i + 1 leave it in place
    targets = [j for j in range(max(0, i - reach), min(count, i + 1 + reach) + 1) if j not in (i, i + 1)]
    if not targets:
        return ()
    j = rng.choice(targets)
    ps, pe = doc.paragraph(k)
    moved = doc.source(ps, pe)
    removal = _delete_words_span(doc, ps, pe)
    if j == count:
        insertion = Splice(doc.ends[-1], doc.ends[-1], "\n\n" + moved)
    else:
        insertion = Splice(doc.starts[starts[j]], doc.starts[starts[j]], moved + "\n\n")
    return tuple(sorted(removal + (insertion,)))


def _rewrap_paragraph(e: Edit, doc: LabDocument, k: int, rng: random.Random) -> tuple[Splice, ...]:
    ps, pe = doc.paragraph(k)
    original = doc.source(ps, pe)
    for _ in range(8):  # a width the paragraph is not already wrapped at
        wrapped = _wrapped([doc.word(w) for w in range(ps, pe)], 30 + rng.randrange(70))
        if wrapped != original:
            break
    return (Splice(doc.starts[ps], doc.ends[pe - 1], wrapped),)


def _wrapped(words: list[str], width: int) -> str:
    lines, line = [], words[0]
    for word in words[1:]:
        if len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line += " " + word
    lines.append(line)
    return "\n".join(lines)


def _insert_words(e: Edit, doc: LabDocument, k: int, rng: random.Random) -> tuple[Splice, ...]:
    count = max(1, min(e.length, doc.n, MAX_RANGE_WORDS))
    d = rng.randrange(doc.n - count + 1)
    donor = doc.joined(d, d + count)
    return (Splice(doc.starts[k], doc.starts[k], donor + " "),)


def _delete_words(e: Edit, doc: LabDocument, k: int, rng: random.Random) -> tuple[Splice, ...]:
    return _delete_words_span(doc, k, min(doc.n, k + max(1, min(e.length, MAX_RANGE_WORDS))))


_MAKERS = {
    FIX_WORD: _fix_word, INSERT_SENTENCE: _insert_sentence, DELETE_SENTENCE: _delete_sentence,
    INSERT_PARAGRAPH: _insert_paragraph, DELETE_PARAGRAPH: _delete_paragraph, SPLIT_PARAGRAPH: _split_paragraph,
    MERGE_PARAGRAPHS: _merge_paragraphs, MOVE_PARAGRAPH: _move_paragraph, REWRAP_PARAGRAPH: _rewrap_paragraph,
    INSERT_WORDS: _insert_words, DELETE_WORDS: _delete_words,
}


# -- drawing edits -------------------------------------------------------------------------


def draw_edit(rng: random.Random, n_words: int, kinds: tuple[str, ...] | None = None) -> Edit:
    """One edit: of the realistic mix (a kind by KIND_WEIGHTS) or, given `kinds`, of one of
    them, each as likely; a uniform position; a length from a geometric-like law (mostly
    short, sometimes long)."""
    kind = rng.choices(EDIT_KINDS, weights=[KIND_WEIGHTS[k] for k in EDIT_KINDS])[0] if kinds is None \
        else rng.choice(kinds)
    if kind in (INSERT_WORDS, DELETE_WORDS):
        length = 1 + min(MAX_RANGE_WORDS - 1, int(rng.expovariate(1 / 8)))
    elif kind == MOVE_PARAGRAPH:
        length = 1 + rng.randrange(5)
    else:
        length = 1
    return Edit(kind, rng.randrange(n_words), length, rng.getrandbits(32))


def draw_edits(n_words: int, count: int, seed: int = 0) -> list[Edit]:
    """`count` edits of the realistic mix over a document of `n_words` words; same seed,
    same edits."""
    rng = random.Random(seed)
    return [draw_edit(rng, n_words) for _ in range(count)]
