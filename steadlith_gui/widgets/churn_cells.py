"""What the churn panel's cells say: the rows of a rule's column and of an external
chunker's (from the core's `Comparison.summary`, `Comparison.baseline` and
`ChunkerChurn`), their tooltips, the locality verdict and the phase-shift regions' labels.
Plain functions over core results, so the numbers are tested without the panel.
"""

from __future__ import annotations


#: Rows an external chunker has no number for: it has no word alignment, so nothing is
#: "shifted", and no margin to check locality against.
NOT_EXTERNAL = {"shifted", "resync", "regions"}
SPLITTER_TITLES = {"langchain-recursive": "LangChain RecursiveCharacterTextSplitter",
                   "llama-index-sentence": "LlamaIndex SentenceSplitter", "chonkie-recursive": "chonkie RecursiveChunker",
                   "semchunk": "semchunk", "fixed-tokens": "fixed-size windows, sized like the splitters"}

ROWS = (
    ("reused_chunks", "reused chunks", "B chunks whose embedding is reused (paired with an equal A chunk)"),
    ("reused_tokens", "reused tokens", "tokens (t) of the reused B chunks, and their share of B's tokens"),
    ("to_embed", "to re-embed", "tokens (t) and chunks of B that need a new embedding"),
    ("shifted", "shifted", "B chunks with no changed word but a new hash: the phase shift (and their tokens)"),
    ("resync", "resync after edit", "the longest distance, in tokens, from an edit to where the cuts are in phase "
                                    "again, beside the rule's locality margin. Past the margin is not a violation: "
                                    "the locality check below counts those"),
    ("regions", "shift regions", "runs of consecutive shifted B chunks"),
)


def _pct(x: float) -> str:
    return f"{x * 100:.1f} %"


def summary_cells(s, margin: int) -> dict[str, str]:
    """The panel's cells for one ChurnSummary (plain text)."""
    return {
        "reused_chunks": f"{s.reused_chunks:,} / {s.chunks_b:,} · {_pct(s.reused_chunk_ratio)}",
        "reused_tokens": f"{s.reused_tokens:,} t · {_pct(s.reused_token_ratio)}",
        "to_embed": f"{s.tokens_to_embed:,} t · {s.chunks_to_embed:,} chunks",
        "shifted": f"{s.shifted_chunks_b:,} · {s.shifted_tokens_b:,} t",
        "resync": f"resync {s.longest_resync_tokens:,} t after the edit, {_side(s.longest_resync_tokens, margin)} "
                  f"margin of {margin:,} t (not a violation by itself: the locality check decides)",
        "regions": f"{s.phase_shift_regions:,}",
    }


def _side(tokens: int, margin: int) -> str:
    return "past the" if tokens > margin else "within the"


def compact_cells(s, margin: int) -> dict[str, str]:
    """The cells as three columns beside the panes have room for (summary_cells, with the
    shares, is each cell's tooltip)."""
    return {
        "reused_chunks": f"{s.reused_chunks:,}/{s.chunks_b:,}",
        "reused_tokens": f"{s.reused_tokens:,} t",
        "to_embed": f"{s.tokens_to_embed:,} t",
        "shifted": f"{s.shifted_chunks_b:,}",
        "resync": f"{s.longest_resync_tokens:,} t · margin {margin:,}",
        "regions": f"{s.phase_shift_regions:,}",
    }


def external_cells(row) -> dict[str, str]:
    """An external chunker's compact cells (ChunkerChurn, by hash)."""
    return {
        "reused_chunks": f"{row.reused_chunks:,}/{row.chunks_b:,}",
        "reused_tokens": f"{row.reused_tokens:,} t",
        "to_embed": f"{row.tokens_to_embed:,} t",
        **{key: "n/a" for key in NOT_EXTERNAL},
    }


def external_tips(row) -> dict[str, str]:
    share = row.reused_chunks / row.chunks_b if row.chunks_b else 1.0
    return {
        "reused_chunks": f"{row.reused_chunks:,} / {row.chunks_b:,} · {_pct(share)}: B chunks whose hash occurs in A",
        "reused_tokens": f"{row.reused_tokens:,} t · {_pct(row.reused_token_ratio)} of B's {row.tokens_b:,} t",
        "to_embed": f"{row.tokens_to_embed:,} t · {row.chunks_to_embed:,} chunks",
        **{key: "does not apply: an external chunker has no word alignment or locality margin, "
                "only hashes" for key in NOT_EXTERNAL},
    }


def verdict_text(comparison) -> tuple[str, str]:
    """(verdict, one line) for the locality check (docs/comparison.md#the-locality-check); the verdict is the core's
    "held", "violated" or "nothing to check"."""
    s = comparison.summary
    if s.violations:
        n = s.violations
        return s.verdict, (f"✗ locality did not hold: {n:,} chunk{'s' if n != 1 else ''} inside shared "
                           f"regions changed")
    if s.checked_ranges == 0:  # no test ran: say so, neither a pass nor a failure
        return s.verdict, (f"– locality: nothing to check (no shared region of 2 × margin = "
                           f"{2 * comparison.margin:,} t)")
    n = s.checked_ranges
    return s.verdict, f"✓ locality held: every chunk deep inside {n:,} shared region{'s' if n != 1 else ''} was reused"


def region_label(r, k: int) -> str:
    b0, b1 = r.b_chunks
    a0, a1 = r.a_chunks
    chunks = f"B {b0}" if b1 - b0 == 1 else f"B {b0}–{b1 - 1}"
    a = f"A {a0}" if a1 - a0 == 1 else f"A {a0}–{a1 - 1}"
    n = r.shifted_chunks
    tokens = r.b_tokens[1] - r.b_tokens[0]
    if r.resynced:
        resync = f"resync {r.resync_distance_tokens:,} t after the edit at B {r.resync_b}"
    else:
        resync = f"never resyncs (≥ {r.resync_distance_tokens:,} t)"
    if r.starts_before_edit:
        resync = f"starts {r.starts_before_edit_tokens:,} t before the edit; {resync}"
    return f"#{k + 1}  {chunks} ↔ {a}: {n} shifted, {tokens:,} t; {resync}"
