"""The built-in examples: demo documents (written for this project, and one public-domain
text; see resources/demo/SOURCES.md) and generated pairs that show one effect each (the phase-shift counterexample of docs/contract/tttd-v1.md#locality,
a small edit, snapping off and on)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

DEMO_DIR = Path(__file__).resolve().parent.parent / "resources" / "demo"

EXAMPLES: dict[str, tuple[str, str]] = {
    "prose": ("chunking-guide-v1.md", "chunking-guide-v2.md"),
    "python": ("tiny_index_v1.py", "tiny_index_v2.py"),
}
EXAMPLE_TITLES = {
    "prose": "Prose: a guide to chunking, two revisions",
    "python": "Python: a small index module, two revisions",
}


def demo_paths(name: str = "prose") -> tuple[Path, Path]:
    a, b = EXAMPLES[name]
    return DEMO_DIR / a, DEMO_DIR / b


@dataclass(frozen=True)
class PairExample:
    """A generated pair: texts, names, parameters (None: keep the current ones); like
    every pair opened, it lands on its first change once analysed."""

    name: str
    title: str
    make: Callable[[], tuple]  # () -> (text_a, text_b, params | None)
    names: tuple[str, str]
    note: str = ""
    # () -> {rule: parameters} of the rules the panes do not show, for the churn panel's
    # side-by-side comparison (None: those rules keep their current parameters)
    rule_params: Callable[[], dict] | None = None


def _counterexample():
    from steadlith_core.bench.examples import phase_shift_counterexample

    return phase_shift_counterexample()


def _lmx2_small() -> dict:
    from steadlith_core.bench.examples import counterexample_lmx2_params

    return {"lmx2-v1": counterexample_lmx2_params()}


def _tttd_counterexample() -> dict:
    from steadlith_core.bench.examples import counterexample_params

    return {"tttd-v1": counterexample_params()}


def _answer():
    """The counterexample's texts with lmx2-v1 in the panes (its "Small chunks" preset)."""
    from steadlith_core.bench.examples import counterexample_lmx2_params

    text_a, text_b, _ = _counterexample()
    return text_a, text_b, counterexample_lmx2_params()


def _tool_library():
    """Real prose, one sentence inserted; tttd-v1 in the panes, both rules at their defaults."""
    from steadlith_core.bench.examples import tool_library_example

    text_a, text_b, params = tool_library_example()
    return text_a, text_b, params["tttd-v1"]


def _lmx2_defaults() -> dict:
    from steadlith_core import Lmx2Params

    return {"lmx2-v1": Lmx2Params()}


SNAP_WINDOW = 16


def _snapping(on: bool):
    text_a, text_b, params = _counterexample()
    if on:
        params = params.with_changes(snap_mode="paragraph-sentence/1", snap_window_words=SNAP_WINDOW)
    return text_a, text_b, params


#: The real prose of the small-edit example: chapters I–III of Jane Austen's Pride and
#: Prejudice (1813; public domain), from Project Gutenberg eBook #1342 with its
#: illustration captions left out (resources/demo/SOURCES.md).
SMALL_EDIT_TEXT = "pride-and-prejudice-1-3.txt"
#: The edit: a modernising editor's spelling, one word in the middle of chapter II.
SMALL_EDIT = ("“To-morrow fortnight.”", "“Tomorrow fortnight.”")


def _small_edit():
    """Real prose with one word respelled in its middle; default parameters."""
    from steadlith_core import ChunkerParams

    text_a = (DEMO_DIR / SMALL_EDIT_TEXT).read_text(encoding="utf-8")
    before, after = SMALL_EDIT
    assert text_a.count(before) == 1
    return text_a, text_a.replace(before, after), ChunkerParams()


PAIR_EXAMPLES: dict[str, PairExample] = {
    "phase-shift": PairExample(
        "phase-shift", "Phase-shift counterexample (tttd-v1 is not strictly local): one sentence inserted", _counterexample,
        ("counterexample-A.txt", "counterexample-B.txt"),
        note="One inserted sentence puts B's backup cuts out of phase with A's for hundreds of tokens "
             "(tttd-v1). The churn panel shows lmx2-v1 beside it: locality held.",
        rule_params=_lmx2_small),
    "phase-shift-lmx2": PairExample(
        "phase-shift-lmx2", "Phase-shift counterexample answered: the same pair under lmx2-v1", _answer,
        ("counterexample-A.txt", "counterexample-B.txt"),
        note="The same inserted sentence under lmx2-v1: only the chunks next to it change; every chunk "
             "farther than the margin is reused (a theorem: docs/contract/lmx2-v1.md#locality).",
        rule_params=_tttd_counterexample),
    "tool-library": PairExample(
        "tool-library", "Real prose: tool library notes, one sentence inserted", _tool_library,
        ("tool-library-A.md", "tool-library-B.md"),
        note="An everyday edit in real prose: at default parameters tttd-v1 shifts cuts past its margin, "
             "lmx2-v1 re-embeds only the chunk with the new sentence (churn panel).",
        rule_params=_lmx2_defaults),
    "small-edit": PairExample(
        "small-edit", "Small edit in prose: one word respelled (Pride and Prejudice)", _small_edit,
        ("pride-and-prejudice-A.txt", "pride-and-prejudice-B.txt"),
        note="Chapters I–III of Pride and Prejudice; B respells one word in the middle (“To-morrow” → "
             "“Tomorrow”, as a modernising editor would): the chunks around it change, the rest is reused."),
    "snapping-off": PairExample(
        "snapping-off", "Snapping off: the inserted sentence, cuts where the fingerprint says",
        lambda: _snapping(False), ("snap-A.txt", "snap-B.txt"),
        note="Snapping off: compare with “Snapping on” (same texts)."),
    "snapping-on": PairExample(
        "snapping-on", f"Snapping on: the same pair, cuts snapped to sentence ends ({SNAP_WINDOW} words)",
        lambda: _snapping(True), ("snap-A.txt", "snap-B.txt"),
        note="Snapping on: cuts move to nearby sentence and paragraph ends, so the versions resync sooner."),
}

ALL_EXAMPLES = (*EXAMPLES, *PAIR_EXAMPLES)
