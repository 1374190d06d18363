"""The window's loader holds a pair to the window's own measured budget
(loader.COMMAND_MEMORY["window"], per byte of both documents): a file that would take the
pair past it is refused before it is read, in one line naming the file, its size, the
pair's limit and what the other side already takes. The budget is shrunk here so that a
small pair stands for a large one."""

from __future__ import annotations

import pytest

from git_helpers import doc_history
from steadlith_core.chunking import loader
from steadlith_core.chunking.loader import COMMAND_MEMORY, human_bytes, memory_per_input_byte
from steadlith_core.history.repository import resolve_revision
from steadlith_gui.workers.loading import FileSource, RevisionSource, TextSource, _prepare, window_budget

TEXT = "A sentence of words that goes on. Another one follows here, longer still.\n\n" * 12


@pytest.fixture
def pair(tmp_path):
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.write_text(TEXT, encoding="utf-8")
    b.write_text(TEXT.replace("longer", "shorter", 1) + "One more line.\n", encoding="utf-8")
    return a, b


def shrink(monkeypatch, pair_bytes: int) -> None:
    """The budget at which the window admits exactly `pair_bytes` for a pair."""
    monkeypatch.setattr(loader, "MEMORY_BUDGET", pair_bytes * memory_per_input_byte("window"))
    assert window_budget() == pair_bytes


def test_the_window_has_its_own_figure_per_rule_on_both_kernels():
    from steadlith_core.kernel import select as kernel

    for figures in COMMAND_MEMORY.values():
        assert set(figures["window"]) == {"tttd-v1", "lmx2-v1"}
    # the churn panel compares the pair under every rule: the costlier one bounds it
    assert memory_per_input_byte("window") == max(COMMAND_MEMORY[kernel.KERNEL]["window"].values())
    assert window_budget() == loader.MEMORY_BUDGET // memory_per_input_byte("window")


def test_a_pair_that_fits_loads_and_one_byte_more_is_refused_naming_the_file(monkeypatch, pair):
    a, b = pair
    size_a, size_b = a.stat().st_size, b.stat().st_size
    shrink(monkeypatch, size_a + size_b)
    documents, errors = _prepare({"A": FileSource(str(a)), "B": FileSource(str(b))})
    assert set(documents) == {"A", "B"} and errors == []

    shrink(monkeypatch, size_a + size_b - 1)
    documents, errors = _prepare({"A": FileSource(str(a)), "B": FileSource(str(b))})
    assert documents == {}
    assert [side for side, _ in errors] == ["A", "B"]
    side, message = errors[1]
    assert message == (f"Cannot load B: {b}: too large: {human_bytes(size_b)}; the window shows a pair of up to "
                       f"{human_bytes(size_a + size_b - 1)} together, and the other side already takes "
                       f"{human_bytes(size_a)} (it needs about {memory_per_input_byte('window')} bytes of memory per "
                       f"byte of text, {human_bytes(loader.MEMORY_BUDGET)} in all); compare larger files with "
                       "`steadlith compare`")
    assert len(message.splitlines()) == 1


def test_the_side_the_window_keeps_counts_against_the_pair(monkeypatch, pair):
    a, b = pair
    size_a, size_b = a.stat().st_size, b.stat().st_size
    shrink(monkeypatch, size_a + size_b - 1)
    documents, errors = _prepare({"B": FileSource(str(b))})  # alone it fits
    assert set(documents) == {"B"} and errors == []
    documents, errors = _prepare({"B": FileSource(str(b))}, held={"A": a.read_text(encoding="utf-8")})
    assert documents == {} and errors[0][0] == "B" and f"{b}: too large: {human_bytes(size_b)}" in errors[0][1]
    assert f"the other side already takes {human_bytes(size_a)}" in errors[0][1]
    # a side the batch replaces does not count: loading both anew is judged on the new pair
    documents, errors = _prepare({"A": TextSource("short words here", "t"), "B": FileSource(str(b))},
                                 held={"A": a.read_text(encoding="utf-8")})
    assert set(documents) == {"A", "B"} and errors == []


def test_a_revision_is_refused_before_its_blob_is_read(monkeypatch, tmp_path):
    repo, ids, texts = doc_history(tmp_path / "repo")
    ref = resolve_revision(str(tmp_path / "repo"), "doc.md", ids[-1])
    size = len(texts[ids[-1]].encode("utf-8"))
    shrink(monkeypatch, size)
    documents, errors = _prepare({"B": RevisionSource.of(ref)})
    assert set(documents) == {"B"} and errors == []
    shrink(monkeypatch, size - 1)
    monkeypatch.setattr("steadlith_gui.workers.loading.read_text_at",
                        lambda ref: pytest.fail("the blob was read although its size is over the budget"))
    documents, errors = _prepare({"B": RevisionSource.of(ref)})
    assert documents == {}
    assert errors[0][1].startswith(f"Cannot load B: doc.md @ {ids[-1]}: too large: {human_bytes(size)}; ")


def test_the_window_says_so_in_one_line(qtbot, window, monkeypatch, pair):
    a, b = pair
    shrink(monkeypatch, a.stat().st_size + b.stat().st_size - 1)
    with qtbot.waitSignal(window.load_failed, timeout=20_000) as blocker:
        window.documents_ctl.load_files(a, b)
    message = blocker.args[0]
    assert message.startswith(f"Cannot load A: {a}: too large: ") and f"Cannot load B: {b}: too large: " in message
    assert window.message_bar.isVisible() and "too large" in window.message_bar.text()
