"""`steadlith-gui [A] [B] [--demo | --example NAME] [--set NAME=VALUE ...] [--theme light|dark] [--screenshot PATH]`

Also `python -m steadlith_gui`. With --screenshot the window loads, waits for the
analysis, saves a PNG of itself and exits: 0 on success, 2 for bad input (arguments,
parameters, documents), 1 if the picture could not be made. It works without a display
(QT_QPA_PLATFORM=offscreen is chosen when no display is available).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import traceback
import weakref
from pathlib import Path

from steadlith_core import ChunkerParams, ParameterError, parse_assignments

from .demo import ALL_EXAMPLES, PAIR_EXAMPLES

EXIT_OK, EXIT_RENDER, EXIT_INPUT = 0, 1, 2
SCREENSHOT_SIZE = (1500, 950)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="steadlith-gui",
        description="Steadlith Inspector: see where and why the content-defined chunker cut two versions of a document.",
    )
    p.add_argument("a", nargs="?", metavar="A", help="first version of the document")
    p.add_argument("b", nargs="?", metavar="B", help="second version of the document")
    p.add_argument("--demo", action="store_true", help="open the built-in demo documents")
    p.add_argument(
        "--example", metavar="NAME", choices=ALL_EXAMPLES,
        help="open a built-in example: " + ", ".join(ALL_EXAMPLES)
        + " (generated examples bring their own parameters; --set applies on top)",
    )
    p.add_argument(
        "--set", action="append", default=[], metavar="NAME=VALUE",
        help="set a chunker parameter (SPEC §6 name; integers in decimal or 0x hex); repeatable",
    )
    p.add_argument("--theme", choices=("light", "dark"), help="colour theme (default: follow the system)")
    p.add_argument("--screenshot", metavar="PATH", help="load, wait for the analysis, save the window as PNG, exit")
    p.add_argument("--timeout", type=float, default=60.0, help=argparse.SUPPRESS)
    return p


def fail(message: str, code: int = EXIT_INPUT) -> int:
    print(f"steadlith-gui: error: {message}", file=sys.stderr)
    return code


def system_theme() -> str:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication

    hints = QGuiApplication.styleHints()
    scheme = getattr(hints, "colorScheme", None)
    if scheme is not None and scheme() == Qt.ColorScheme.Dark:
        return "dark"
    return "light"


def install_excepthook(window) -> None:
    """Unexpected exceptions go to the window's message bar (and to stderr for a report)."""
    ref = weakref.ref(window)
    previous = sys.excepthook

    def hook(etype, value, tb):
        if issubclass(etype, KeyboardInterrupt):
            previous(etype, value, tb)
            return
        traceback.print_exception(etype, value, tb)
        w = ref()
        if w is not None:
            try:
                w.show_message(f"Unexpected error: {etype.__name__}: {value}. The window keeps running; details are on the console.")
            except Exception:  # noqa: BLE001 - never fail inside the hook
                pass

    sys.excepthook = hook


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if sum(bool(x) for x in (args.demo, args.example, args.a or args.b)) > 1:
        return fail("give document files, --demo or --example, one of them")
    try:
        params = parse_assignments(args.set) if args.set else ChunkerParams()
    except ParameterError as e:
        return fail(f"invalid parameter: {e}")
    if args.screenshot:
        out = Path(args.screenshot)
        if not out.parent.is_dir():
            return fail(f"cannot write the screenshot: {out.parent} is not a directory")
        if sys.platform.startswith("linux") and not os.environ.get("QT_QPA_PLATFORM"):
            if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
                os.environ["QT_QPA_PLATFORM"] = "offscreen"

    from PySide6.QtWidgets import QApplication

    from .demo import demo_paths
    from .main_window import MainWindow, apply_theme
    from .palette import THEMES

    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "steadlith-gui"])
    app.setApplicationName("Steadlith Inspector")
    app.setOrganizationName("Steadlith")
    theme = THEMES[args.theme or system_theme()]
    apply_theme(app, theme)
    window = MainWindow(params, theme)
    install_excepthook(window)

    paths: tuple = (None, None)
    example = None
    if args.demo:
        paths = demo_paths("prose")
    elif args.example in PAIR_EXAMPLES:
        example = args.example
    elif args.example:
        paths = demo_paths(args.example)
    elif args.a or args.b:
        paths = (args.a, args.b)

    example_params = None
    if example is not None and args.set:  # the command line wins over the example's parameters
        try:
            example_params = parse_assignments(args.set, base=PAIR_EXAMPLES[example].make()[2])
        except ParameterError as e:
            return fail(f"invalid parameter: {e}")

    def start() -> None:
        if example is not None:
            window.load_example(example, params=example_params)
        elif any(paths):
            window.load_files(*paths)

    if args.screenshot:
        return run_screenshot(app, window, start if (example or any(paths)) else None, Path(args.screenshot), args.timeout)

    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl+C in the terminal closes the app
    window.show()
    start()
    return app.exec()


def run_screenshot(app, window, start, out: Path, timeout: float) -> int:
    from PySide6.QtCore import QTimer

    done = {"code": None}

    def finish(code: int, message: str | None = None) -> None:
        if done["code"] is not None:
            return
        done["code"] = code
        if message:
            print(f"steadlith-gui: error: {message}", file=sys.stderr)
        app.exit(code)

    def save() -> None:
        if done["code"] is not None:
            return
        app.processEvents()
        picture = window.grab()
        if picture.isNull() or not picture.save(str(out), "PNG"):
            finish(EXIT_RENDER, f"could not render or write the screenshot {out}")
        else:
            finish(EXIT_OK)

    def on_ready(_result) -> None:
        QTimer.singleShot(30, save)  # let the panes and docks repaint first

    def on_load_failed(message: str) -> None:
        first = message.splitlines()[0] if message else "cannot load the documents"
        finish(EXIT_INPUT, first)

    def on_analysis_failed(message: str) -> None:
        finish(EXIT_INPUT, f"analysis failed: {message}")

    window.analysis_ready.connect(on_ready)
    window.load_failed.connect(on_load_failed)
    window.analyzer.failed.connect(on_analysis_failed)
    window.resize(*SCREENSHOT_SIZE)
    window.show()
    QTimer.singleShot(int(timeout * 1000), lambda: finish(EXIT_RENDER, f"no analysis after {timeout:.0f} s"))
    if start is not None:
        start()
    else:
        QTimer.singleShot(50, save)
    code = app.exec()
    return done["code"] if done["code"] is not None else code


if __name__ == "__main__":
    sys.exit(main())
