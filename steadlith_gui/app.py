"""`steadlith-gui [A] [B] [--demo | --example NAME | --open-workspace FILE [--trust-workspace]]
[--set NAME=VALUE ...] [--label A=NAME] [--label B=NAME] [--theme system|light|dark]
[--screenshot PATH [--size WIDTHxHEIGHT]] [--export-report PATH]`

Also `python -m steadlith_gui`.

A and B are files or files at a git revision, `PATH@REV` (`README.md@HEAD~3`,
`docs/guide.md@v1.2`; steadlith_core.history.revisions has the rule: an existing file named
exactly so wins). A revision is read from the repository in-process, shown as
`path @ short-hash — subject`, and never watched on disk; an unknown revision or a path
not in it is one line and exit 2 before any window opens.

A workspace that reads files outside its own folder is opened only once the user has
seen their real paths and agreed; a headless run has nobody to ask, so it needs
--trust-workspace (without it: exit 2, naming the files).

Headless outputs: with --export-report and/or --screenshot the window loads, waits for
the analysis, writes the HTML report (atomically) and/or a PNG of itself, and exits: 0
on success, 2 for bad input (arguments, parameters, documents, a workspace, an output
folder that does not exist, a report without two documents), 1 if a file could not be
rendered or written. Errors are one line "steadlith-gui: error: ..." on stderr. The
report alone never shows the window (QT_QPA_PLATFORM=offscreen unless set); a
screenshot uses offscreen when no display is available.

Precedence: the command line wins. Parameters: --set (applied on top of a generated
example's or a workspace's parameters), else the example's or the workspace's, else
the defaults for --demo, else (plain start or files) the last valid parameters the
settings remember. Theme: --theme, else the choice remembered from View → Theme, else
follow the system. Headless runs neither read nor write the settings.
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
from steadlith_core.kernel.allocator import keep_freed_memory
from steadlith_core.errors import visible
from steadlith_core.history.git_errors import GitError
from steadlith_core.history.revisions import parse_revision_arg

from . import __version__
from .model.demo import ALL_EXAMPLES, PAIR_EXAMPLES

EXIT_OK, EXIT_RENDER, EXIT_INPUT = 0, 1, 2
SCREENSHOT_SIZE = (1500, 950)
SCREEN_FOR_SCREENSHOT = (1920, 1080)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit 2, as for `steadlith`
    (its cli.main._Parser); an argument in the message is escaped like every name."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_INPUT, f"{self.prog}: error: {visible(message)} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="steadlith-gui",
        description="Steadlith Inspector: see where and why the content-defined chunker cut two versions of a document.",
        epilog="Command-line choices win over remembered settings: --set, --example, --demo or --open-workspace "
               "decide the parameters (otherwise the last ones are restored), --theme the theme. "
               "--screenshot and --export-report run headless, ignore the remembered settings, and exit "
               "0 (written), 2 (bad input) or 1 (could not write).",
    )
    p.add_argument("a", nargs="?", metavar="A",
                   help="first version of the document: a file, or PATH@REV for the file at a git revision "
                        "(a hash, a branch, a tag, HEAD~3; an existing file named so wins)")
    p.add_argument("b", nargs="?", metavar="B", help="second version of the document (a file or PATH@REV)")
    p.add_argument("--demo", action="store_true", help="open the built-in demo documents")
    p.add_argument(
        "--example", metavar="NAME", choices=ALL_EXAMPLES,
        help="open a built-in example: " + ", ".join(ALL_EXAMPLES)
        + " (generated examples bring their own parameters; --set applies on top)",
    )
    p.add_argument(
        "--open-workspace", metavar="FILE",
        help="open a .steadlith workspace (documents, edits, parameters, view options; --set applies on top)",
    )
    p.add_argument(
        "--trust-workspace", action="store_true",
        help="let --open-workspace read files outside the workspace's folder without asking "
             "(a headless run refuses them otherwise)",
    )
    p.add_argument(
        "--set", action="append", default=[], metavar="NAME=VALUE",
        help="set a chunker parameter (a field of docs/contract/tttd-v1.md#parameters or lmx2-v1.md#parameters; integers in decimal or 0x hex); repeatable",
    )
    p.add_argument("--theme", choices=("system", "light", "dark"),
                   help="colour theme for this run (default: the one chosen in View → Theme, else the system's)")
    p.add_argument("--screenshot", metavar="PATH", help="load, wait for the analysis, save the window as PNG, exit")
    p.add_argument("--export-report", metavar="PATH",
                   help="load, wait for the analysis, write the self-contained HTML report, exit "
                        "(without showing the window)")
    p.add_argument("--size", metavar="WIDTHxHEIGHT", type=_size, default=None,
                   help="with --screenshot: the picture's size, laid out as on a screen that size (default: "
                        "%dx%d, laid out as on a 1080p screen); a size narrower than 1600 or lower than 900 "
                        "tabs the side docks"
                        % SCREENSHOT_SIZE)
    p.add_argument("--label", action="append", default=[], metavar="SIDE=NAME", type=_label,
                   help="the name shown for A or B instead of the file's, e.g. --label A=HEAD~1:guide.md "
                        "(repeatable; as diff tools label revisions read from pipes)")
    p.add_argument("--timeout", type=float, default=60.0, help=argparse.SUPPRESS)
    p.add_argument("--version", action=_VersionAction, nargs=0,
                   help="show the versions of the inspector, the core (and its kernel) and Qt, and exit")
    return p


def version_line() -> str:
    """One line naming everything a bug report needs: both packages, the kernel, Qt."""
    import platform

    import PySide6
    from PySide6 import QtCore
    import steadlith_core
    from steadlith_core.kernel import select as kernel

    return (f"steadlith-gui {__version__}, steadlith-core {steadlith_core.__version__} ({kernel.describe()}), "
            f"PySide6 {PySide6.__version__}, Qt {QtCore.qVersion()}, Python {platform.python_version()}")


class _VersionAction(argparse.Action):
    """Prints the version line whole (argparse's own action wraps it) and exits."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_line())
        parser.exit()


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT (e.g. 1366x768)") from None
    if not (320 <= w <= 10_000 and 240 <= h <= 10_000):
        raise argparse.ArgumentTypeError(f"{text!r}: width and height must be between 320x240 and 10000x10000")
    return w, h


def _label(text: str) -> tuple[str, str]:
    side, sep, name = text.partition("=")
    if not sep or side.strip().upper() not in ("A", "B") or not name.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not A=NAME or B=NAME")
    return side.strip().upper(), name.strip()


def document_arg(arg: str | None):
    """A command-line document: a RevisionRef for PATH@REV, else the path as given. The
    repository is opened here, before the window, so that a bad revision is one line on
    stderr rather than a window with an error in it."""
    if arg is None:
        return None
    return parse_revision_arg(arg) or arg


def fail(message: str, code: int = EXIT_INPUT) -> int:
    print(f"steadlith-gui: error: {visible(message)}", file=sys.stderr)
    return code


def system_theme() -> str:
    """"dark" if the desktop prefers a dark colour scheme, else "light"."""
    from .widgets.palette import system_theme_name

    return system_theme_name()


def install_excepthook(window) -> None:
    """Unexpected exceptions go to the window's message bar (and to stderr for a report)."""
    ref = weakref.ref(window)
    previous = sys.excepthook

    def hook(etype, value, tb):
        if issubclass(etype, KeyboardInterrupt):
            previous(etype, value, tb)
            return
        w = ref()
        if issubclass(etype, MemoryError):  # not a bug to report: say what to do instead
            if w is not None:
                try:
                    w.show_message("Out of memory: the window keeps running. Close other programs or "
                                   "load smaller documents.")
                except Exception:  # noqa: BLE001 - never fail inside the hook
                    pass
            return
        traceback.print_exception(etype, value, tb)
        if w is not None:
            try:
                w.show_message(f"Unexpected error: {etype.__name__}: {value}. The window keeps running; details are on the console.")
            except Exception:  # noqa: BLE001 - never fail inside the hook
                pass

    sys.excepthook = hook


def _has_display() -> bool:
    """False only on Linux without an X or Wayland display (macOS and Windows always have one)."""
    if not sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    keep_freed_memory()  # the app owns its process: analyses reuse what earlier ones freed
    if sum(bool(x) for x in (args.demo, args.example, args.a or args.b, args.open_workspace)) > 1:
        return fail("give document files, --demo, --example or --open-workspace, one of them")
    labels = dict(args.label)
    if labels and not (args.a or args.b):
        return fail("--label names document files given on the command line: give A and B")
    try:
        documents = (document_arg(args.a), document_arg(args.b))
    except GitError as e:
        return fail(str(e))
    # --set applies on top of the defaults, or of a generated example's or a workspace's
    # parameters (checked once those are known: below, or when the workspace is read)
    on_top = bool(args.open_workspace or args.example in PAIR_EXAMPLES)
    try:
        params = parse_assignments(args.set) if args.set and not on_top else ChunkerParams()
    except ParameterError as e:
        return fail(f"invalid parameter: {e}")
    outputs: list[tuple[str, Path]] = []
    for option, kind, what in ((args.export_report, "report", "report"), (args.screenshot, "png", "screenshot")):
        if option:
            out = Path(option)
            if out.is_dir():
                return fail(f"cannot write the {what}: {out} is a directory")
            if not out.parent.is_dir():
                return fail(f"cannot write the {what}: {out.parent} is not a directory")
            outputs.append((kind, out))
    if args.export_report and not (args.demo or args.example or (args.a and args.b) or args.open_workspace):
        return fail("--export-report compares two documents: give A and B, --demo, --example or --open-workspace")
    headless = bool(outputs)
    if headless and not os.environ.get("QT_QPA_PLATFORM"):
        if not args.screenshot:  # nothing to show: never open a window
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
        elif not _has_display():
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
    if not headless and not os.environ.get("QT_QPA_PLATFORM") and not _has_display():
        # Qt would abort with a page about platform plugins; say what is wrong instead
        return fail("no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset); "
                    "run it on a desktop, or render it with --screenshot PATH")

    from PySide6.QtWidgets import QApplication

    from .workers.gui_thread_gc import collect_in_gui_thread, freeze_startup
    from .main_window import MainWindow
    from .controllers.settings import APPLICATION, ORGANIZATION, AppSettings
    from .controllers.recovery import default_folder as default_recovery_folder
    from .model.recovery import RecoveryStore

    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "steadlith-gui"])
    collect_in_gui_thread()
    app.setApplicationName(APPLICATION)
    app.setOrganizationName(ORGANIZATION)
    settings = AppSettings.memory() if headless else AppSettings.user()
    theme = args.theme or settings.theme() or "system"
    # unsaved edits are kept for a crash only in a window someone types into
    recovery = None if headless else RecoveryStore(default_recovery_folder())
    window = MainWindow(params, theme, settings=settings, recovery=recovery)
    install_excepthook(window)
    if not headless:
        # the command line decides the parameters when it names any; else the last ones
        window.restore_settings(params=not (args.set or args.example or args.demo or args.open_workspace),
                                theme=False)
    freeze_startup()  # before any document: full collections then walk only what came after

    paths: tuple = (None, None)
    example = None
    if args.demo:
        example = "prose"  # opens on its first change, with a line saying what to look at
    elif args.example:
        example = args.example
    elif args.a or args.b:
        paths = documents

    example_params = None
    if example in PAIR_EXAMPLES and args.set:  # the command line wins over the example's parameters
        try:
            example_params = parse_assignments(args.set, base=PAIR_EXAMPLES[example].make()[2])
        except ParameterError as e:
            return fail(f"invalid parameter: {e}")

    def start() -> None:
        if args.open_workspace:
            # headless: nobody to ask, so only the flag lets it read files outside its folder
            trust = True if args.trust_workspace else (False if headless else None)
            window.workspaces.open(args.open_workspace, keep_theme=bool(args.theme), assignments=args.set,
                                  trust=trust)
        elif example is not None:
            window.documents_ctl.load_example(example, params=example_params)
        elif any(paths):
            window.documents_ctl.load_files(*paths, remember=not (args.demo or args.example), labels=labels)

    has_input = bool(args.open_workspace or example or any(paths))
    if headless:
        return run_headless(app, window, start if has_input else None, outputs, args.timeout,
                            show=bool(args.screenshot), size=args.size)

    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl+C in the terminal closes the app
    window.show()
    start()
    window.recovery.offer_left_behind()  # what a window that crashed left unsaved: Restore or Discard
    return app.exec()


def run_headless(app, window, start, outputs: list[tuple[str, Path]], timeout: float, show: bool,
                 size: tuple[int, int] | None = None) -> int:
    """Load (start), wait until the analysis of what was asked for is on screen, write
    each output in order (the report, then the PNG) through the window's own export
    functions, and exit."""
    from PySide6.QtCore import QTimer, qInstallMessageHandler

    def quiet(_mode, _context, message: str) -> None:
        # the offscreen platform's notices about window-manager features it lacks are noise
        # here (stderr is for the one-line error); every other Qt message still goes out
        if not message.startswith("This plugin does not support"):
            print(message, file=sys.stderr)

    qInstallMessageHandler(quiet)
    done = {"code": None, "started": False}
    pending = list(outputs)
    what = {"report": "report", "png": "screenshot"}

    def finish(code: int, message: str | None = None) -> None:
        if done["code"] is not None:
            return
        done["code"] = code
        if message:
            print(f"steadlith-gui: error: {visible(message)}", file=sys.stderr)
        app.exit(code)

    def next_output() -> None:
        if done["code"] is not None:
            return
        if not pending:
            finish(EXIT_OK)
            return
        kind, path = pending[0]
        if kind == "report":
            key = window.exports.export_report(str(path))
        else:
            app.processEvents()  # let the panes and docks repaint first
            key = window.exports.export_png(str(path))
        if key is None:
            finish(EXIT_INPUT, f"nothing to write as the {what[kind]}")

    def on_exported(kind: str, _path: str) -> None:
        if pending and pending[0][0] == kind:
            pending.pop(0)
            next_output()

    def on_export_failed(kind: str, message: str) -> None:
        finish(EXIT_RENDER, f"could not write the {what.get(kind, kind)}: {message}")

    def on_ready(_result) -> None:
        if done["started"] or window.analyzer.busy or window.loader.pending or window.jobs.pending:
            return  # a newer analysis or load is on its way: wait for what was asked for
        if any(kind == "report" for kind, _ in pending) and window.session.comparison is None:
            a, b = window.session.documents()
            missing = "A" if a is None else "B" if b is None else None
            reason = f"{missing} is missing" if missing else "the versions could not be compared"
            finish(EXIT_INPUT, f"the report compares two documents, and {reason}")
            return
        done["started"] = True
        QTimer.singleShot(30, next_output)

    def on_load_failed(message: str) -> None:
        first = message.splitlines()[0] if message else "cannot load the documents"
        finish(EXIT_INPUT, first)

    def on_analysis_failed(message: str) -> None:
        finish(EXIT_INPUT, f"analysis failed: {message}")

    def on_workspace_failed(message: str) -> None:
        finish(EXIT_INPUT, f"cannot open the workspace: {message.splitlines()[0] if message else ''}")

    window.analysis_ready.connect(on_ready)
    window.load_failed.connect(on_load_failed)
    window.analyzer.failed.connect(on_analysis_failed)
    window.workspace_failed.connect(on_workspace_failed)
    window.exported.connect(on_exported)
    window.export_failed.connect(on_export_failed)
    from PySide6.QtCore import QRect

    # laid out as on a screen of that size (default: a 1080p screen, where the window
    # takes SCREENSHOT_SIZE); a picture has no window frame: all of it is the window
    window.dock_layout.fit_to_screen(QRect(0, 0, *(size or SCREEN_FOR_SCREENSHOT)), framed=False)
    window.resize(*(size or SCREENSHOT_SIZE))
    if show:
        window.show()
    QTimer.singleShot(int(timeout * 1000), lambda: finish(EXIT_RENDER, f"no analysis after {timeout:.0f} s"))
    if start is not None:
        QTimer.singleShot(0, start)
    else:
        done["started"] = True
        QTimer.singleShot(50, next_output)
    code = app.exec()
    return done["code"] if done["code"] is not None else code


if __name__ == "__main__":
    sys.exit(main())
