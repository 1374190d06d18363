"""The display logic without Qt: `viewmodel` and `edit_tracker` import no PySide6 and
work in a plain interpreter; the edit tracker shifts a result to the text typed since;
the one changed-run lookup serves the pane and the side status alike."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
from steadlith_core import chunk, compare
from steadlith_core.bench.examples import phase_shift_counterexample

from steadlith_gui.model.documents import prepare_document
from steadlith_gui.model.edit_tracker import EditTracker
from steadlith_gui.model.layouts import ChunkLayout, SideStatus, runs_overlapping

PROBE = r"""
import json, sys
from steadlith_core import chunk
from steadlith_core.bench.examples import phase_shift_counterexample
from steadlith_gui.model.documents import prepare_document
from steadlith_gui.model.edit_tracker import EditTracker
from steadlith_gui.model.layouts import ChunkLayout, SideStatus
from steadlith_gui.model.links import LinkList, map_position

a, b, params = phase_shift_counterexample()
doc_a, doc_b = prepare_document("A", a), prepare_document("B", b)
ca, cb = chunk(a, params), chunk(b, params)
from steadlith_core import compare
c = compare(ca, cb)
la, lb = ChunkLayout.build(ca, doc_a.offsets), ChunkLayout.build(cb, doc_b.offsets)
sa = SideStatus.build("A", c, doc_a.offsets)
links = LinkList.build(c.status_a, c.status_b, c.alignment)
tracker = EditTracker()
tracker.record(0, 0, 5)
view = tracker.view(la, sa)
i, j = c.alignment[-1]
mapped = map_position(int(la.starts[i]), la.starts, la.ends, len(a), lb.starts, lb.ends, len(b),
                      [p for p, _ in c.alignment], [q for _, q in c.alignment])
report = {
    "qt": sorted(m for m in sys.modules if m.startswith(("PySide6", "shiboken6"))),
    "bands": len(links), "shifted_start": int(view.starts[1]) - int(la.starts[1]),
    "mapped": mapped, "partner_start": int(lb.starts[j]),
}
try:
    import PySide6.QtCore  # the probe must be able to see Qt when it is loaded
    report["qt_seen"] = any(m.startswith("PySide6") for m in sys.modules)
except ImportError:
    report["qt_seen"] = None
print(json.dumps(report))
"""


def test_display_logic_runs_without_loading_qt():
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["qt"] == []
    assert report["qt_seen"] is True  # the probe does see Qt once it is loaded (PySide6 is installed)
    assert report["bands"] > 1 and report["shifted_start"] == 5  # the typed 5 characters moved chunk 1
    assert report["mapped"] == report["partner_start"]  # a reused chunk's start maps to its partner's


def _layout():
    a, b, params = phase_shift_counterexample()
    doc_a, doc_b = prepare_document("A", a), prepare_document("B", b)
    c = compare(chunk(a, params), chunk(b, params))
    return ChunkLayout.build(c.a, doc_a.offsets), SideStatus.build("B", c, doc_b.offsets), c, doc_b


def _side_layout(c):
    _, b, _ = phase_shift_counterexample()
    return ChunkLayout.build(c.b, prepare_document("B", b).offsets)


def test_tracker_shifts_the_result_by_the_edits_typed_since_it_was_made():
    layout, _, _, _ = _layout()
    t = EditTracker()
    assert t.view(layout, None).starts.tolist() == layout.starts.tolist()
    at = int(layout.starts[2])
    assert t.record(at, 0, 3)  # typed 3 characters where chunk 2 starts
    assert not t.record(at, 0, 0)  # nothing changed: no revision
    assert t.revision == 1 and t.has_pending_edits
    v = t.view(layout, None)
    assert v.starts[:2].tolist() == layout.starts[:2].tolist()
    assert (v.starts[2:] - layout.starts[2:]).tolist() == [3] * (layout.count - 2)
    # a result made from revision 1 is shown: nothing left to shift
    t.show(1)
    assert not t.has_pending_edits
    assert t.view(layout, None).starts.tolist() == layout.starts.tolist()


def test_one_changed_run_lookup_for_pane_and_side():
    _, status, c, _ = _layout()
    assert status.changed_starts.size >= 1
    s, e = int(status.changed_starts[0]), int(status.changed_ends[0])
    view = EditTracker().view(_side_layout(c), status)
    for lo, hi in ((s, e), (s - 50, s), (e, e + 50), (0, 10**9)):
        assert view.changed_visible(lo, hi) == status.changed_visible(lo, hi) == runs_overlapping(
            status.changed_starts, status.changed_ends, lo, hi)
    # half-open runs: a window ending where the run starts, or starting where it ends, misses it
    assert 0 not in runs_overlapping(status.changed_starts, status.changed_ends, s - 50, s)
    assert 0 not in runs_overlapping(status.changed_starts, status.changed_ends, e, e + 50)
    assert 0 in runs_overlapping(status.changed_starts, status.changed_ends, e - 1, e + 50)
    assert runs_overlapping(np.array([5]), np.array([9]), 0, 4) == range(0)

