"""The revisions dialog pairs B with the version before it, as a History click does,
and warns when the pair chosen is not "before, after"."""

from steadlith_core.history.repository import CommitInfo

from steadlith_gui.widgets.revision_dialog import RevisionDialog


def commits(n=5):
    """Newest first, as file_log lists them."""
    return [CommitInfo(f"{k:040x}", f"{k:07x}", f"change {k}", "someone", 1_700_000_000 + k, f"{k - 1:040x}"
                       if k else None, "doc.md") for k in reversed(range(n))]


def test_choosing_b_moves_a_to_the_version_before_it(qtbot):
    dialog = RevisionDialog("/repo", "doc.md", commits())
    qtbot.addWidget(dialog)
    assert (dialog.list_a.currentRow(), dialog.list_b.currentRow()) == (1, 0)
    dialog.list_b.setCurrentRow(2)
    assert dialog.list_a.currentRow() == 3
    a, b = dialog.choice()
    assert a.commit == b.parent  # the commit before B in the file's log: B's parent here
    assert dialog.warning.isHidden()
    dialog.list_a.setCurrentRow(4)  # A stays free: an older version is a fair "before"
    assert dialog.list_b.currentRow() == 2 and dialog.warning.isHidden()


def test_a_reversed_pair_gets_a_warning(qtbot):
    dialog = RevisionDialog("/repo", "doc.md", commits())
    qtbot.addWidget(dialog)
    dialog.list_b.setCurrentRow(3)
    dialog.list_a.setCurrentRow(1)  # A newer than B
    assert not dialog.warning.isHidden()
    assert "Reversed" in dialog.warning.text() and "newer than B" in dialog.warning.text()
    dialog.list_a.setCurrentRow(3)
    assert "same version" in dialog.warning.text()
    dialog.list_a.setCurrentRow(4)
    assert dialog.warning.isHidden()


def test_b_that_added_the_file_has_no_version_before_it(qtbot):
    dialog = RevisionDialog("/repo", "doc.md", commits())
    qtbot.addWidget(dialog)
    dialog.list_b.setCurrentRow(4)  # the oldest: it added the file
    assert dialog.list_a.currentRow() == 4
    assert "added the file" in dialog.warning.text()
