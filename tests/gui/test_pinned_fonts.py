"""The GUI tests draw with the pinned DejaVu fonts (tests/conftest.py's fontconfig set-up),
whatever the machine has installed: the code panes' fixed font and the interface font."""

from PySide6.QtGui import QFontDatabase, QFontInfo
from PySide6.QtWidgets import QApplication


def test_only_the_pinned_families_are_visible(qapp):
    # Qt lists fontconfig's generic names as families of their own; behind them stand
    # only the pinned files
    generic = {"Monospace", "Sans Serif", "Serif"}
    assert set(QFontDatabase.families()) - generic == {"DejaVu Sans", "DejaVu Sans Mono"}


def test_the_fixed_and_the_interface_fonts_resolve_to_the_pinned_ones(qapp):
    fixed = QFontInfo(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    assert fixed.family() == "DejaVu Sans Mono" and fixed.fixedPitch()
    assert QFontInfo(QApplication.font()).family() == "DejaVu Sans"
