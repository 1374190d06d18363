"""Examples bring their own parameters for as long as they are shown: the user's own
documents get the user's parameters back, and the settings never remember an
example's."""

from gui_helpers import load_texts, make_window
from steadlith_core import ChunkerParams
from steadlith_gui.model.demo import PAIR_EXAMPLES
from steadlith_gui.controllers.settings import AppSettings

OWN = ChunkerParams(min_tokens=64, max_tokens=400)
TEXT_A = "One paragraph of the user's own notes, written plainly. " * 40
TEXT_B = TEXT_A.replace("plainly", "clearly", 3)


def load_example(qtbot, window, name):
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000) as blocker:
        window.documents_ctl.load_example(name)
    return blocker.args[0]


def test_own_documents_after_an_example_get_the_users_parameters_back(qtbot):
    settings = AppSettings.memory()
    window = make_window(qtbot, settings=settings)
    window.session.set_params(OWN, show=True)  # no documents yet: nothing to analyse
    example_params = PAIR_EXAMPLES["phase-shift"].make()[2]

    result = load_example(qtbot, window, "phase-shift")
    assert result.params == example_params  # the example is shown as it was made
    assert window.message_bar.isVisible()
    window.save_settings()
    assert settings.params() == OWN  # an example's parameters are never remembered

    result = load_texts(qtbot, window, TEXT_A, TEXT_B, name_a="mine-A.txt", name_b="mine-B.txt")
    assert result.params == OWN
    assert window.session.params == OWN and window.params_panel.params == OWN
    assert not window.message_bar.isVisible()  # the example's note no longer applies
    window.save_settings()
    assert settings.params() == OWN


def test_one_example_after_another_still_returns_the_users_parameters(qtbot):
    window = make_window(qtbot)
    window.session.set_params(OWN, show=True)  # no documents yet: nothing to analyse
    load_example(qtbot, window, "phase-shift")
    load_example(qtbot, window, "snapping-on")
    assert window.session.params.snap_mode == "paragraph-sentence/1"
    result = load_example(qtbot, window, "prose")  # a demo pair brings no parameters
    assert result.params == OWN
    result = load_texts(qtbot, window, TEXT_A, TEXT_B)
    assert result.params == OWN
