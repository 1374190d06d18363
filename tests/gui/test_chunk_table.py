"""The chunk table: a thin model over both versions, sortable and filterable; selecting
a row selects (and shows) the chunk in its pane, and clicking a chunk selects its row."""

from PySide6.QtCore import Qt
from steadlith_core.bench.examples import phase_shift_counterexample

from compare_helpers import chunk_visible, position_point
from gui_helpers import load_texts, make_window
from steadlith_gui.widgets.models import COLUMNS, ChunkTableModel


def load_counterexample(qtbot, window):
    a, b, params = phase_shift_counterexample()
    window.session.set_params(params, show=True)
    return load_texts(qtbot, window, a, b)


def cell(table, row: int, column: str) -> str:
    model = table.model()
    return model.data(model.index(row, COLUMNS.index(column)))


def test_rows_are_the_chunks_of_both_versions_with_their_statuses(qtbot, window):
    result = load_counterexample(qtbot, window)
    table = window.chunk_table
    assert table.objectName() == "chunkTable" and table.isVisible()
    assert window.findChild(type(window.table), "chunkTableBox") is window.table
    c = result.comparison
    na, nb = len(result.a.chunks), len(result.b.chunks)
    assert table.model().rowCount() == na + nb
    # first A's chunks, then B's, each with the core's numbers and status
    for row, (side, chunks, statuses) in ((0, ("A", result.a.chunks, c.status_a)), (na + 3, ("B", result.b.chunks, c.status_b))):
        i = row if side == "A" else row - na
        ch = chunks[i]
        assert cell(table, row, "version") == side and cell(table, row, "index") == str(i)
        assert cell(table, row, "status") == statuses[i]
        assert cell(table, row, "tokens") == f"{ch.tokens:,}" and cell(table, row, "hash") == ch.hash
        assert cell(table, row, "offsets") == f"{ch.start:,}–{ch.end:,}"
    # the status colour is a cell decoration, the sort key a number
    model = window.table.model
    ix = model.index(na + 3, COLUMNS.index("status"))
    assert model.data(ix, Qt.ItemDataRole.DecorationRole) is not None
    assert model.data(model.index(na + 3, COLUMNS.index("tokens")), ChunkTableModel.SortRole) == result.b.chunks[3].tokens


def test_filter_by_version_status_and_text_and_sort_by_tokens(qtbot, window):
    result = load_counterexample(qtbot, window)
    c = result.comparison
    box = window.table
    box.version_combo.setCurrentIndex(box.version_combo.findData("B"))
    box.status_combo.setCurrentIndex(box.status_combo.findData("shifted"))
    shifted_b = [i for i, s in enumerate(c.status_b) if s == "shifted"]
    assert box.proxy.rowCount() == len(shifted_b)
    assert {cell(window.chunk_table, r, "index") for r in range(box.proxy.rowCount())} == {str(i) for i in shifted_b}
    box.status_combo.setCurrentIndex(0)
    box.version_combo.setCurrentIndex(0)
    h = result.b.chunks[5].hash
    box.filter_edit.setText(h[:10])
    assert box.proxy.rowCount() == 1 and cell(window.chunk_table, 0, "hash") == h
    box.filter_edit.clear()
    # sorting: a header click orders rows by the column's number, descending on a second click
    header = window.chunk_table.horizontalHeader()
    col = COLUMNS.index("tokens")
    window.chunk_table.sortByColumn(col, Qt.SortOrder.DescendingOrder)
    tokens = [int(cell(window.chunk_table, r, "tokens").replace(",", "")) for r in range(box.proxy.rowCount())]
    assert tokens == sorted(tokens, reverse=True) and header.sortIndicatorSection() == col


def test_selecting_a_row_selects_and_shows_the_chunk_in_its_pane(qtbot, window):
    result = load_counterexample(qtbot, window)
    window.act["sync"].setChecked(False)
    view = window.chunk_table
    na = len(result.a.chunks)
    j = len(result.b.chunks) - 2  # near the end of B: not on screen at first
    window.pane_b.verticalScrollBar().setValue(0)
    assert not chunk_visible(window.pane_b, j)
    row = window.table.row_for("B", j)
    assert row == na + j
    view.scrollTo(view.model().index(row, 0))
    rect = view.visualRect(view.model().index(row, COLUMNS.index("index")))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.navigation.selection == ("B", j)
    assert window.pane_b.selected == j and chunk_visible(window.pane_b, j)
    partner = result.comparison.partner_b[j]
    assert window.pane_a.partner_selected == partner


def test_clicking_a_chunk_in_a_pane_selects_its_row(qtbot, window):
    result = load_counterexample(qtbot, window)
    pane = window.pane_a
    i = 2
    start, end = pane.chunk_span(i)
    pane.scroll_position_to_y(start, 40)
    point = position_point(pane, (start + end) // 2)
    assert pane.chunk_at_point(point) == i
    qtbot.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert window.navigation.selection == ("A", i) and pane.selected == i
    assert window.table.selected_chunk() == ("A", i)
    rows = window.chunk_table.selectionModel().selectedRows()
    assert len(rows) == 1 and cell(window.chunk_table, rows[0].row(), "version") == "A"
    # a new result (another parameter) keeps the selection
    assert result.a.chunks[i].hash


def test_model_and_filter_alone_over_a_comparison(qtbot):
    """The model and its filter without a window or a view: rows read the core's chunks
    (through the model's public `chunk`), the filter keeps what a user asks for."""
    from steadlith_core import chunk, compare

    from steadlith_gui.widgets.models import ChunkFilterProxy

    a, b, params = phase_shift_counterexample()
    c = compare(chunk(a, params), chunk(b, params))
    model = ChunkTableModel()
    model.set_result(c.a, c.b, c.status_a, c.status_b)
    proxy = ChunkFilterProxy()
    proxy.setSourceModel(model)
    na = len(c.a.chunks)
    assert model.chunk("A", 2) is c.a.chunks[2] and model.chunk("B", 0) is c.b.chunks[0]
    assert model.chunk_at_row(na + 1) == ("B", 1) and model.row_of("B", 1) == na + 1

    def shown() -> list[tuple[str, int]]:
        return [model.chunk_at_row(proxy.mapToSource(proxy.index(r, 0)).row()) for r in range(proxy.rowCount())]

    proxy.set_filters(version="B", status="changed")
    assert shown() == [("B", j) for j, s in enumerate(c.status_b) if s != "reused"]
    # the text filter searches the chunk's hash (read through model.chunk)
    target = c.b.chunks[5]
    proxy.set_filters(version="", status="", text=target.hash[:12].upper())
    assert shown() == [("B", 5)]
    proxy.set_filters(text="backup")
    assert shown() and all(model.chunk(side, i).kind == "backup" for side, i in shown())
    # sorting the proxy sorts the model by the column's number, ties in natural order
    proxy.set_filters(text="")
    proxy.sort(COLUMNS.index("tokens"), Qt.SortOrder.DescendingOrder)
    tokens = [model.chunk(side, i).tokens for side, i in shown()]
    assert tokens == sorted(tokens, reverse=True) and len(tokens) == na + len(c.b.chunks)


def test_filter_state_round_trips_and_ignores_unknown_values(qtbot):
    from steadlith_gui.widgets.chunk_table import ChunkTable

    table = ChunkTable()
    qtbot.addWidget(table)
    changes = []
    table.filter_changed.connect(changes.append)
    assert table.filter_state() == {"text": "", "version": "", "status": ""}
    table.set_filter_state({"text": "backup", "version": "B", "status": "shifted"})
    assert table.filter_state() == {"text": "backup", "version": "B", "status": "shifted"}
    assert table.version_combo.currentText() == "B" and table.status_combo.currentText() == "shifted"
    assert changes[-1] == table.filter_state()
    table.set_filter_state({"version": "C", "status": 7, "text": None})  # unknown or wrong type: kept
    assert table.filter_state() == {"text": "backup", "version": "B", "status": "shifted"}
    table.status_combo.setCurrentIndex(table.status_combo.findData("changed"))  # as a user would
    assert changes[-1]["status"] == "changed"



def test_typing_in_the_table_filter_does_not_recolour_the_documents(qtbot, monkeypatch):
    """A key in the filter box changes the session's view options; applying them must
    not re-run syntax colouring (O(document): seconds on a large code file), only what
    changed. Counted on the highlighter of both panes."""
    from steadlith_gui.widgets.syntax_highlighter import PygmentsHighlighter

    calls = []
    original = PygmentsHighlighter.rehighlight
    monkeypatch.setattr(PygmentsHighlighter, "rehighlight", lambda self: (calls.append(1), original(self)))
    window = make_window(qtbot)
    code = "def f(x):\n    return x + 1\n\n" * 40
    load_texts(qtbot, window, code, code.replace("x + 1", "x + 2", 1), name_a="a.py", name_b="b.py")
    calls.clear()
    qtbot.keyClicks(window.table.filter_edit, "prim")
    window.act["legend"].trigger()
    window.act["legend"].trigger()
    assert window.session.view.chunk_filter["text"] == "prim"
    assert calls == []
    window.act["syntax"].trigger()  # a real change still recolours: off, then on again
    window.act["syntax"].trigger()
    assert window.session.view.syntax_colour and calls
