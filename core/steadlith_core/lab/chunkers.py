"""Each chunker the lab measures, over one original document: the original's chunks are
computed once, and every edit is measured against them.

`outcome(edit, stream)` takes the incremental path (incremental.py: only the chunks an
edit can touch are cut and hashed again); `outcome_from_scratch` chunks the whole edited
text with the public pipeline. Tests hold the two equal on random edits.
"""

from __future__ import annotations

import numpy as np

from ..chunking import tokens as token_counters
from ..chunking.chunks import AnyParams
from ..chunking.identity import CHUNKER_FAMILY
from ..chunking.lmx2 import CHUNKER_FAMILY as LMX2_FAMILY
from ..chunking.lmx2_params import LMX2_RULE, Lmx2Params
from ..chunking.params import BOUNDARY_RULE, ChunkerParams
from ..chunking.pipeline import Pipeline
from ..comparison.baseline import BASELINE_FAMILY, BASELINE_STRATEGY, FixedTokenParams, chunk_fixed, fixed_chunking
from ..comparison.external import SplitterChunker
from .edits import Edit, LabDocument
from .incremental import changed_chunks
from .measure import ChangedChunk, EditOutcome, measure
from .stream import EditedStream

FIXED = "fixed"


class LabChunker:
    """One chunker over one original document."""

    name: str
    rule: str  # the boundary rule or strategy id
    margin: int | None
    family: str

    def __init__(self, doc: LabDocument, params, pipeline: Pipeline):
        self.doc = doc
        self.params = params
        self.pipeline = pipeline
        self.counter = token_counters.get_counter(params.token_counter)
        original = self._chunk(doc.text)
        columns = original.columns
        self._params_hash = original.params_hash
        self.hashes = frozenset(columns.hashes)
        self.tokens = original.word_tokens
        self.cum = original.cum_tokens
        self.chunk_starts = columns.start_words
        self.chunk_ends = columns.end_words
        n = len(self.tokens)
        # what the incremental path looks up: the original's cuts, where they lie, and
        # the hash of each chunk by its word range
        self.cuts = self.chunk_starts.tolist() + [n]
        self.cut_tokens = self.cum[self.cuts].tolist()
        self.start_index = frozenset(self.cuts[:-1])
        self.bounds = dict(zip(zip(self.chunk_starts.tolist(), self.chunk_ends.tolist()), columns.hashes))
        # the original Chunking is not kept: what an edit is measured against is above, and
        # its stages (lmx2-v1's keys, the canonical slices of its Chunk objects) would stay
        # alive for the whole run, once per chunker
        self._original_stages(original)

    def _original_stages(self, original) -> None:
        """What a rule's incremental path reads of the original chunking beyond the
        common columns (TttdChunker: its candidate positions)."""

    def _chunk(self, text: str):
        return self.pipeline.chunk(text, self.params)

    @property
    def params_hash(self) -> str:
        return self._params_hash

    def outcome(self, edit: Edit, stream: EditedStream) -> EditOutcome:
        cum = stream.token_view(self.counter, self.tokens, self.cum)
        return measure(edit, changed_chunks(self, stream), _edit_tokens(stream, cum), cum[-1], self.margin,
                       stream.words_changed)

    def outcome_from_scratch(self, edit: Edit, stream: EditedStream) -> EditOutcome:
        edited = self._chunk(stream.text)
        cum = edited.cum_tokens
        changed = [ChangedChunk(int(cum[c.start_word]), int(cum[c.end_word]))
                   for c in edited.chunks if c.hash not in self.hashes]
        return measure(edit, changed, _edit_tokens(stream, cum), int(cum[-1]), self.margin, stream.words_changed)


def _edit_tokens(stream: EditedStream, cum) -> list[tuple[int, int]]:
    return [(int(cum[s.b_start]), int(cum[s.b_end])) for s in stream.spans]


class TttdChunker(LabChunker):
    family = CHUNKER_FAMILY
    rule = BOUNDARY_RULE

    def __init__(self, doc: LabDocument, params: ChunkerParams, pipeline: Pipeline, name: str = "tttd-v1"):
        super().__init__(doc, params, pipeline)
        self.name = name
        self.margin = params.margin
        # the last word each chunk's decision read (docs/contract/tttd-v1.md#segmentation): the word that would overflow
        # it, or its own last word, and the snapping window past its cut
        cum, starts = self.cum, self.chunk_starts
        over = np.searchsorted(cum, cum[starts] + params.max_tokens, "right") - 1
        reach = np.maximum(np.maximum(over, starts + 1), self.chunk_ends) + params.effective_snap_window
        self.reads_up_to = np.minimum(reach, n_words := len(self.tokens)).tolist()
        if self.reads_up_to:
            self.reads_up_to[-1] = n_words

    def _original_stages(self, original) -> None:
        p = self.params
        fp = original.fingerprints
        self.primary_at = np.flatnonzero((fp & np.uint64(p.primary_mask)) == np.uint64(p.primary_remainder))
        self.backup_at = np.flatnonzero((fp & np.uint64(p.backup_mask)) == np.uint64(p.backup_remainder))


class Lmx2Chunker(LabChunker):
    family = LMX2_FAMILY
    rule = LMX2_RULE

    def __init__(self, doc: LabDocument, params: Lmx2Params, pipeline: Pipeline, name: str = "lmx2-v1"):
        super().__init__(doc, params, pipeline)
        self.name = name
        self.margin = params.margin


class FixedChunker(LabChunker):
    """The fixed-size baseline: no margin, so `margin_held` is None for it."""

    family = BASELINE_FAMILY
    rule = BASELINE_STRATEGY
    margin = None

    def __init__(self, doc: LabDocument, params: FixedTokenParams, pipeline: Pipeline, name: str = FIXED):
        self.name = name
        super().__init__(doc, params, pipeline)

    def _chunk(self, text: str):
        if text is self.doc.text:  # the original: its words and canonical text are the lab document's
            tok, cum = self.pipeline.document(text).tokens(self.counter)
            return fixed_chunking(self.doc.words, tok, cum, self.params, self.doc.canonical)
        return chunk_fixed(text, self.params)


class ExternalChunker:
    """A splitter of another library (external.SplitterChunker): the whole edited text is
    split again for every edit (nothing says where its cuts resynchronize). A chunk is
    re-embedded when its text's hash the original's spans lack; it lies over the tokens
    of the words it touches; there is no margin."""

    margin = None

    def __init__(self, doc: LabDocument, splitter: SplitterChunker, name: str):
        self.doc = doc
        self.name = name
        self.rule = splitter.name
        self.splitter = splitter
        self.params = splitter
        self.counter = token_counters.get_counter(splitter.token_counter)
        self.tokens = self.counter.count(doc.words)
        self.cum = np.concatenate([[0], np.cumsum(self.tokens)]).astype(np.int64)
        self.original = splitter.chunk(doc.text)
        self.hashes = frozenset(c.hash for c in self.original.chunks)

    @property
    def params_hash(self) -> str:
        return self.splitter.name

    def outcome(self, edit: Edit, stream: EditedStream) -> EditOutcome:
        return self.outcome_from_scratch(edit, stream)

    def outcome_from_scratch(self, edit: Edit, stream: EditedStream) -> EditOutcome:
        cum = stream.tokens(self.counter, self.tokens, self.cum)[1]
        starts, ends = stream.starts_of(), stream.ends_of()
        changed = []
        for c in self.splitter.chunk(stream.text).chunks:
            if c.hash not in self.hashes:
                first = int(np.searchsorted(ends, c.start, "right"))  # the first word the span touches
                stop = int(np.searchsorted(starts, c.end, "left"))  # words starting before its end
                changed.append(ChangedChunk(int(cum[first]), int(cum[max(stop, first)]), c.tokens))
        return measure(edit, changed, _edit_tokens(stream, cum), int(cum[-1]), None, stream.words_changed)


def baseline_params(sizes_from: AnyParams | None) -> FixedTokenParams:
    """The fixed-size baseline "fixed" stands for: `sizes_from`'s max_tokens and token
    counter, else the defaults."""
    return FixedTokenParams() if sizes_from is None else FixedTokenParams(sizes_from.max_tokens,
                                                                          sizes_from.token_counter)


def make_chunker(name: str, params: AnyParams | FixedTokenParams | SplitterChunker | None, doc: LabDocument,
                 pipeline: Pipeline, sizes_from: AnyParams | None = None) -> LabChunker | ExternalChunker:
    """The lab's chunker for `name` with `params`: ChunkerParams (tttd-v1), Lmx2Params
    (lmx2-v1), for "fixed" None (the baseline at `sizes_from`'s max_tokens and token
    counter, else its defaults) or FixedTokenParams, or an external SplitterChunker."""
    if isinstance(params, SplitterChunker):
        return ExternalChunker(doc, params, name)
    if isinstance(params, ChunkerParams):
        return TttdChunker(doc, params, pipeline, name)
    if isinstance(params, Lmx2Params):
        return Lmx2Chunker(doc, params, pipeline, name)
    if isinstance(params, FixedTokenParams):
        return FixedChunker(doc, params, pipeline, name)
    if params is None and name == FIXED:
        return FixedChunker(doc, baseline_params(sizes_from), pipeline, name)
    raise TypeError(f"no chunker {name!r} takes parameters of type {type(params).__name__}")
