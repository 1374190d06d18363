"""The thin adapters: link-map bands from statuses, position mapping for sync scrolling,
edits shifting decorations (Qt-free functions, checked directly)."""

import numpy as np
import pytest
from steadlith_core import chunk, compare
from steadlith_core.bench.examples import phase_shift_counterexample

from steadlith_gui.model.edit_tracker import shift_positions
from steadlith_gui.model.links import LinkList, map_position


def test_link_list_covers_every_chunk_once_in_order():
    a, b, params = phase_shift_counterexample()
    c = compare(chunk(a, params), chunk(b, params))
    links = LinkList.build(c.status_a, c.status_b, c.alignment)
    # monotone, contiguous, covering both versions exactly
    assert links.a_lo[0] == 0 and links.b_lo[0] == 0
    assert links.a_hi[-1] == len(c.status_a) and links.b_hi[-1] == len(c.status_b)
    assert np.all(links.a_lo[1:] == links.a_hi[:-1]) and np.all(links.b_lo[1:] == links.b_hi[:-1])
    # one band per alignment pair, and the phase-shift region is one shifted band
    pairs = [(int(links.a_lo[k]), int(links.b_lo[k])) for k in links.pairs]
    assert pairs == list(c.alignment)
    assert [links.status[k] for k in links.pairs] == ["reused"] * len(pairs)
    r = c.phase_shift_regions[0]
    shifted = [k for k, s in enumerate(links.status) if s == "shifted"]
    assert [(int(links.b_lo[k]), int(links.b_hi[k])) for k in shifted] == [r.b_chunks]


@pytest.mark.parametrize("status_a, status_b, alignment, expected", [
    (("reused", "removed", "reused"), ("reused", "reused"), ((0, 0), (2, 1)),
     [("reused", 0, 1, 0, 1), ("removed", 1, 2, 1, 1), ("reused", 2, 3, 1, 2)]),
    (("reused",), ("reused", "new"), ((0, 0),), [("reused", 0, 1, 0, 1), ("new", 1, 1, 1, 2)]),
    (("edited", "shifted"), ("edited", "shifted", "shifted"), (),
     [("edited", 0, 1, 0, 1), ("shifted", 1, 2, 1, 3)]),
    ((), (), (), []),
])
def test_link_list_groups_regions_between_pairs(status_a, status_b, alignment, expected):
    links = LinkList.build(status_a, status_b, alignment)
    got = [(links.status[k], int(links.a_lo[k]), int(links.a_hi[k]), int(links.b_lo[k]), int(links.b_hi[k]))
           for k in range(len(links))]
    assert got == expected


def test_map_position_is_proportional_inside_pairs_and_gaps():
    starts_a, ends_a = np.array([0, 100, 300]), np.array([90, 290, 400])
    starts_b, ends_b = np.array([0, 150, 500]), np.array([140, 490, 700])
    align_a, align_b = np.array([0, 2]), np.array([0, 2])  # chunk 1 is not paired (a gap)
    args = (starts_a, ends_a, 400, starts_b, ends_b, 700, align_a, align_b)
    assert map_position(45, *args) == 70  # half of A chunk 0 -> half of B chunk 0
    assert map_position(350, *args) == 600  # half of A chunk 2 -> half of B chunk 2
    assert map_position(195, *args) == 320  # half of the gap [90, 300] -> half of [140, 500]
    assert map_position(0, *args) == 0 and map_position(400, *args) == 700
    assert map_position(10, starts_a, ends_a, 400, starts_b, ends_b, 700, np.array([], int), np.array([], int)) == 18


def test_shift_positions_follows_inserts_and_deletes():
    arr = np.array([0, 5, 10, 20])
    assert list(shift_positions(arr, [(5, 0, 3)])) == [0, 8, 13, 23]  # insert 3 at 5
    assert list(shift_positions(arr, [(4, 4, 0)])) == [0, 4, 6, 16]  # delete [4, 8): 5 -> 4
    assert list(shift_positions(arr, [(4, 2, 2)])) == [0, 5, 10, 20]  # same length: format or overwrite
    assert list(shift_positions(arr, [(0, 0, 1), (0, 1, 0)])) == [0, 5, 10, 20]  # typed and undone


def test_installed_pyside6_keeps_none_alive():
    """PySide6-Essentials 6.12.0 on Python 3.11 drops a reference to None on every void
    call, so the inspector aborts ("none_dealloc") after a minute of painting. The
    project excludes that release in pyproject.toml; this fails if it comes back."""
    import sys

    from PySide6.QtCore import QObject

    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(2_000):
        probe.setObjectName("probe")
    lost = before - sys.getrefcount(None)
    assert lost < 100, f"PySide6 lost {lost} references to None in 2000 calls: a release with the defect"
