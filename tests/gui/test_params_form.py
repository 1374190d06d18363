"""The parameters form keeps whole rows: an inline error (a wrapped line under its
field) makes the panel taller, it scrolls, and no field is squeezed below its height."""

import pytest
from gui_helpers import load_texts
from test_params import enter, error_label


def squeezed(window) -> list[str]:
    form = window.params_panel.form
    return [f"{name}: {w.height()} < {w.minimumSizeHint().height()}" for name, w in form.fields.items()
            if w.isVisible() and w.height() < w.minimumSizeHint().height()]


@pytest.mark.parametrize("width", [1400, 1100])
def test_an_inline_error_does_not_collapse_the_form(qtbot, window, width):
    window.resize(width, window.height())
    load_texts(qtbot, window, "a b c " * 200, "a b d " * 200)
    qtbot.waitUntil(lambda: not squeezed(window))
    enter(qtbot, window, "min_tokens", "600")
    label = error_label(window, "max_tokens")
    assert label.isVisible()
    qtbot.wait(50)  # the layout takes the new row in
    assert not squeezed(window), squeezed(window)
    assert label.height() >= label.heightForWidth(label.width()), "the error's own text is cut"
