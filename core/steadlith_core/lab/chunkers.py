"""Each chunker the lab measures, over one original document: the original's chunks are
computed once, and every edit is measured against them.

`outcome(edit, stream)` takes the incremental path (incremental.py: only the chunks an
edit can touch are cut and hashed again); `outcome_from_scratch` chunks the whole edited
text with the public pipeline. Tests hold the two equal on random edits.
"""

from __future__ import annotations

import numpy as np

from .. import tokens as token_counters
from ..baseline import BASELINE_FAMILY, BASELINE_STRATEGY, FixedTokenParams, chunk_fixed
from ..chunks import AnyParams
from ..identity import CHUNKER_FAMILY
from ..lmx2 import CHUNKER_FAMILY as LMX2_FAMILY
from ..lmx2_params import LMX2_RULE, Lmx2Params
from ..params import BOUNDARY_RULE, ChunkerParams
from ..pipeline import Pipeline
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
        self.original = original
        self.chunks = original.chunks
        self.hashes = frozenset(c.hash for c in original.chunks)
        self.tokens = original.word_tokens
        self.cum = original.cum_tokens
        self.chunk_starts = np.fromiter((c.start_word for c in original.chunks), dtype=np.int64,
                                        count=len(original.chunks))
        n = len(self.tokens)
        # what the incremental path looks up: the original's cuts, where they lie, and
        # the hash of each chunk by its word range
        self.cuts = self.chunk_starts.tolist() + [n]
        self.cut_tokens = self.cum[self.cuts].tolist()
        self.start_index = frozenset(self.cuts[:-1])
        self.bounds = {(c.start_word, c.end_word): c.hash for c in original.chunks}
        self.chunk_ends = np.fromiter((c.end_word for c in original.chunks), dtype=np.int64,
                                      count=len(original.chunks))

    def _chunk(self, text: str):
        return self.pipeline.chunk(text, self.params)

    @property
    def params_hash(self) -> str:
        return self.original.params_hash

    def outcome(self, edit: Edit, stream: EditedStream) -> EditOutcome:
        cum = stream.tokens(self.counter, self.tokens, self.cum)[1]
        return measure(edit, changed_chunks(self, stream), _edit_tokens(stream, cum), int(cum[-1]), self.margin,
                       stream.words_changed)

    def outcome_from_scratch(self, edit: Edit, stream: EditedStream) -> EditOutcome:
        edited = self._chunk(stream.text)
        cum = edited.cum_tokens
        changed = [ChangedChunk(int(cum[c.start_word]), int(cum[c.end_word]))
                   for c in edited.chunks if c.hash not in self.hashes]
        return measure(edit, changed, _edit_tokens(stream, cum), int(cum[-1]), self.margin, stream.words_changed)


def _edit_tokens(stream: EditedStream, cum: np.ndarray) -> list[tuple[int, int]]:
    return [(int(cum[s.b_start]), int(cum[s.b_end])) for s in stream.spans]


class TttdChunker(LabChunker):
    family = CHUNKER_FAMILY
    rule = BOUNDARY_RULE

    def __init__(self, doc: LabDocument, params: ChunkerParams, pipeline: Pipeline, name: str = "tttd-v1"):
        super().__init__(doc, params, pipeline)
        self.name = name
        self.margin = params.margin
        # the last word each chunk's decision read (SPEC §4-5): the word that would overflow
        # it, or its own last word, and the snapping window past its cut
        cum, starts = self.cum, self.chunk_starts
        over = np.searchsorted(cum, cum[starts] + params.max_tokens, "right") - 1
        reach = np.maximum(np.maximum(over, starts + 1), self.chunk_ends) + params.effective_snap_window
        self.reads_up_to = np.minimum(reach, n_words := len(self.tokens)).tolist()
        if self.reads_up_to:
            self.reads_up_to[-1] = n_words
        fp = self.original.fingerprints
        self.primary_at = np.flatnonzero((fp & np.uint64(params.primary_mask)) == np.uint64(params.primary_remainder))
        self.backup_at = np.flatnonzero((fp & np.uint64(params.backup_mask)) == np.uint64(params.backup_remainder))


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
        return chunk_fixed(text, self.params)


def make_chunker(name: str, params: AnyParams | FixedTokenParams | None, doc: LabDocument, pipeline: Pipeline,
                 sizes_from: AnyParams | None = None) -> LabChunker:
    """The lab's chunker for `name` with `params`: ChunkerParams (tttd-v1), Lmx2Params
    (lmx2-v1), or for "fixed" None (the baseline at `sizes_from`'s max_tokens and token
    counter, else its defaults) or FixedTokenParams."""
    if isinstance(params, ChunkerParams):
        return TttdChunker(doc, params, pipeline, name)
    if isinstance(params, Lmx2Params):
        return Lmx2Chunker(doc, params, pipeline, name)
    if isinstance(params, FixedTokenParams):
        return FixedChunker(doc, params, pipeline, name)
    if params is None and name == FIXED:
        base = FixedTokenParams() if sizes_from is None else FixedTokenParams(sizes_from.max_tokens,
                                                                                 sizes_from.token_counter)
        return FixedChunker(doc, base, pipeline, name)
    raise TypeError(f"no chunker {name!r} takes parameters of type {type(params).__name__}")
