"""The progress convention shared by the long commands: a callback that can also stop."""

import pytest

from steadlith_core.cli.progress import progress_bar
from steadlith_core.progress import Cancelled, report


def test_a_bar_on_a_terminal_shows_counts_and_unit(capsys):
    with progress_bar("auditing", "commits", enabled=True) as progress:
        for done in range(1, 4):
            progress(done, 3)
    err = capsys.readouterr().err
    assert "auditing" in err and "3/3" in err and "commits" in err


def test_no_bar_text_when_disabled(capsys):
    with progress_bar("auditing", "commits", enabled=False) as progress:
        progress(1, 2)
    assert capsys.readouterr().err == ""


def test_cancelled_raised_by_the_callback_stops_the_work():
    seen = []

    def stop_at_two(done, total):
        seen.append(done)
        if done == 2:
            raise Cancelled()

    with pytest.raises(Cancelled):
        for i in range(1, 10):
            report(stop_at_two, i, 9)
    assert seen == [1, 2]
    report(None, 1, 1)  # no callback: nothing happens
