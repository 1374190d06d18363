"""The names the core's results use for cut kinds and chunk statuses: a leaf module.

They live here, not in kernel/segment.py or comparison/churn.py, so that whatever only needs the
words (the visual language in style.py, a table header, a legend) does not pull in
the chunker or the analysis. This module imports nothing.
"""

from __future__ import annotations

# Kinds of cut of tttd-v1 (docs/contract/tttd-v1.md#segmentation): the kind of the chunk that ends at the cut.
PRIMARY, BACKUP, HARD, END = "primary", "backup", "hard", "end"
KINDS = (PRIMARY, BACKUP, HARD, END)
# Kinds of cut of lmx2-v1 (docs/contract/lmx2-v1.md#chunks). "primary" and "end" are shared names: a
# primary cut of either rule is the rule's usual cut, "end" the end of the document.
FILL, LONG_WORD = "fill", "long-word"
LMX2_KINDS = (PRIMARY, FILL, LONG_WORD, END)
# Keyed by the rule ids of params.py and lmx2_params.py, spelled out because this
# module imports nothing.
KINDS_BY_RULE = {"tttd-v1": KINDS, "lmx2-v1": LMX2_KINDS}

# The boundary class of a chunk's end cut (docs/contract/lmx2-v1.md#classes,
# docs/contract/lmx2-v1.md#chunks), reported for the chunks of every rule: where the text itself has a break, whatever rule chose the cut.
PARAGRAPH, SENTENCE, WORD = "paragraph", "sentence", "word"
BOUNDARIES = (PARAGRAPH, SENTENCE, WORD, END)
# Not a kind of cut: a chunk whose cut snapping moved (Chunk.snapped) is drawn with
# this marker, while its kind stays that of the raw cut.
SNAPPED = "snapped"

# Statuses of a chunk between two versions (comparison/churn.py defines them precisely).
REUSED, SHIFTED, EDITED, NEW, REMOVED = "reused", "shifted", "edited", "new", "removed"
STATUSES = (REUSED, SHIFTED, EDITED, NEW, REMOVED)  # legend and table order
STATUSES_A = (REUSED, SHIFTED, EDITED, REMOVED)
STATUSES_B = (REUSED, SHIFTED, EDITED, NEW)


def is_changed(status: str) -> bool:
    """A chunk is *changed* when it is not reused: its embedding must be computed again,
    whatever the reason (edited, shifted, new or removed). The one place this rule is
    spelled: churn counts, locality violations and "next change" navigation follow it."""
    return status != REUSED


# The token counters every process knows (chunking/tokens.py registers them at import and
# refuses to unregister them), named here so a parameter check need not load the counters.
BUILTIN_TOKEN_COUNTERS = ("chars4/1", "words/1")
