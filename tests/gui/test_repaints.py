"""A result repaints what it changed once, in the window's own paint, and nothing it
leaves as it was. New bars repaint the histogram once, after the events posted with
them (the layouts a result changes), not as soon as the plot's scene has gone over its
changed items; "no references" or the same split line again repaints and refits nothing."""

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QHBoxLayout, QWidget

from steadlith_gui.widgets.histogram import Histogram


class Probe(QWidget):
    """A widget beside the plot, updated with it: when it paints, the window painted."""

    def __init__(self):
        super().__init__()
        self.paints = 0
        self.setMinimumSize(40, 40)

    def paintEvent(self, event) -> None:  # noqa: N802
        self.paints += 1


class Watch(QObject):
    """Counts the paints of the widget it is installed on, and notes how often the probe
    had painted when a posted User event reaches it."""

    def __init__(self, probe: Probe):
        super().__init__()
        self.probe = probe
        self.paints = 0
        self.probe_paints_then: list[int] = []

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.Paint:
            self.paints += 1
        return False

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.User:
            self.probe_paints_then.append(self.probe.paints)
            return True
        return super().event(event)


def settle(qtbot) -> None:
    for _ in range(3):
        QApplication.sendPostedEvents()
        QApplication.processEvents()
    qtbot.wait(40)


def test_new_bars_paint_once_in_the_window_s_turn(qtbot):
    box = QWidget()
    qtbot.addWidget(box)
    hist, probe = Histogram(), Probe()
    lay = QHBoxLayout(box)
    lay.addWidget(hist)
    lay.addWidget(probe)
    box.resize(500, 200)
    box.show()
    qtbot.waitExposed(box)
    edges = (0, 10, 20, 30)
    # the axes grow to the widest tick labels first (wider labels re-lay the plot out,
    # and repaint it, which is not what is counted here): one digit from here on
    hist.set_data(edges, (9, 9, 9))
    watch = Watch(probe)
    hist.viewport().installEventFilter(watch)
    # each new y range moves the bars and the "> max" label: the view's matrix and the
    # label's transform change with it
    for counts in ((4, 2, 1), (1, 3, 0), (2, 5, 1), (7, 1, 2)):
        settle(qtbot)
        hist_before, probe_before = watch.paints, probe.paints
        hist.set_data(edges, counts)
        probe.update()  # another view takes the same result
        QApplication.postEvent(watch, QEvent(QEvent.Type.User))  # posted after them, as a result's layouts are
        qtbot.waitUntil(lambda: bool(watch.probe_paints_then) and probe.paints > probe_before)
        settle(qtbot)
        assert hist.counts == counts
        # the scene did not send the window's paint early: the posted event came first
        assert watch.probe_paints_then.pop() == probe_before
        # and the plot painted once: what a paint would change first was made with the bars
        assert watch.paints == hist_before + 1


def test_no_references_again_is_no_repaint(qtbot):
    """Every result asks the panes for their question set's references: the same "none"
    again repaints nothing (a completion of the churn panel repainted both panes)."""
    import numpy as np

    from steadlith_gui.widgets.document_pane import DocumentPane

    pane = DocumentPane("A")
    qtbot.addWidget(pane)
    pane.setPlainText("one two three four five six seven eight\n" * 20)
    pane.resize(400, 300)
    pane.show()
    qtbot.waitExposed(pane)
    watch = Watch(Probe())
    pane.viewport().installEventFilter(watch)
    for starts, repaints in ((None, 0), (np.array([4]), 1), (np.array([4]), 1), (None, 1), (None, 0)):
        settle(qtbot)
        before = watch.paints
        if starts is None:
            pane.set_references(None)
        else:
            pane.set_references(starts, starts + 3)
        settle(qtbot)
        assert watch.paints - before == repaints, (starts, repaints)


def test_the_same_split_line_is_not_fitted_again(qtbot, monkeypatch):
    from steadlith_gui.widgets.churn import ChurnPanel
    from steadlith_gui.widgets.palette import LIGHT

    panel = ChurnPanel(LIGHT)
    qtbot.addWidget(panel)
    fits = []
    fit = panel._fit_wrapped
    monkeypatch.setattr(panel, "_fit_wrapped", lambda: (fits.append(1), fit()))
    for text, fitted in ((None, 0), ("2 cuts split a reference", 1), ("2 cuts split a reference", 0),
                         ("3 cuts split a reference", 1), (None, 1), (None, 0)):
        before = len(fits)
        panel.show_reference_splits(text)
        assert len(fits) - before == fitted, (text, fitted)
        assert panel.reference_splits.text() == (text or "")
        assert panel.reference_splits.isVisibleTo(panel) == bool(text)
