"""The numpy scan leaves sentence ends out (kernel.scan(sentence_ends=False)); a
CanonicalText then tests only the words it is asked about. Those answers, and the whole
array when asked for, are the scan's own."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st

from steadlith_core.kernel import select as kernel
from steadlith_core.chunking.boundaries import cut_boundary_codes
from steadlith_core.chunking.canonical import CanonicalText
from steadlith_core.kernel.segment import ends_sentence

WORDS = st.sampled_from(["end.", "why?", "so!)", "said.\u201d", "quote.'", "wait\u2026", "\u65e5\u3002", "x\uff01",
                         "plain", "a.b", "\u00bb", ".", "\u201d", "mid", "\U0001F680!", "e\u0301."])
GAPS = st.sampled_from([" ", "\n\n", "\r\n\r\n", "\u3000", "\t", "  "])
TEXTS = st.lists(st.tuples(WORDS, GAPS), max_size=40).map(lambda ws: "".join(w + g for w, g in ws))


@given(TEXTS, st.data())
@example("a. b", None)
def test_sentence_ends_asked_word_by_word_equal_the_scans(text, data):
    with kernel.using("numpy"):
        full, lazy = kernel.scan(text), kernel.scan(text, sentence_ends=False)
    assert lazy.sentence_ends is None
    words = text.split()
    assert full.sentence_ends.tolist() == [ends_sentence(w) for w in words]
    asked = (np.arange(len(words)) if data is None
             else np.array(data.draw(st.lists(st.integers(0, max(len(words) - 1, 0)))) if words else [], dtype=np.int64))
    on_demand = CanonicalText.of_scan(lazy)
    assert on_demand.sentence_ends_at(asked).tolist() == full.sentence_ends[asked].tolist()
    ends = np.arange(1, len(words) + 1)
    assert cut_boundary_codes(on_demand, ends).tolist() == cut_boundary_codes(CanonicalText.of_scan(full), ends).tolist()
    assert on_demand.sentence_ends.tolist() == full.sentence_ends.tolist()
