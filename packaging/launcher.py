"""Entry point of the PyInstaller bundle: `steadlith-inspector` is `steadlith-gui`.

It runs steadlith_gui.app:main, the console script of the steadlith-gui package, with
the same arguments and exit status. One addition for the bundle's own checks: with the
environment variable STEADLITH_BUNDLE_PROBE=1 it prints, as one JSON object, what the
frozen program can see (the core's kernel, its package data, the GUI's demo documents,
the Qt platform plugins, the libraries, and the optional extras that must be absent) and exits, so that packaging/bundle.py --smoke checks the
bundle from inside rather than by the layout of its files.
"""

import multiprocessing
import os
import sys


def _version_of(module) -> str:
    return str(getattr(module, "__version__", None) or getattr(module, "VERSION", None) or "?")


def probe() -> int:
    import importlib
    import json
    from importlib import resources
    from importlib.util import find_spec

    import steadlith_core
    import steadlith_gui
    from PySide6.QtCore import QLibraryInfo

    def names(package: str, *parts: str) -> list[str]:
        folder = resources.files(package).joinpath(*parts)
        return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []

    plugins = QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)
    platforms = os.path.join(plugins, "platforms")
    print(json.dumps({
        "kernel": steadlith_core.KERNEL,
        "core_version": steadlith_core.__version__,
        "gui_version": steadlith_gui.__version__,
        "core_data": names("steadlith_core", "data"),
        "gui_demo": names("steadlith_gui", "resources", "demo"),
        "platform_plugins": sorted(os.listdir(platforms)) if os.path.isdir(platforms) else [],
        "frozen": bool(getattr(sys, "frozen", False)),
        # the libraries the inspector needs, imported here as the window would
        "libraries": {name: _version_of(importlib.import_module(name))
                      for name in ("numpy", "xxhash", "pygit2", "pygments", "pyqtgraph", "tqdm")},
        # what must not be in the bundle: found without importing it
        "unwanted": [name for name in ("tkinter", "langchain_text_splitters", "langchain_core", "llama_index",
                                       "chonkie", "semchunk", "dask", "distributed", "pytest", "hypothesis")
                     if find_spec(name) is not None],
    }))
    return 0


if __name__ == "__main__":
    multiprocessing.freeze_support()  # a spawned worker re-enters here; it must not start the window
    if os.environ.get("STEADLITH_BUNDLE_PROBE") == "1":
        sys.exit(probe())
    from steadlith_gui.app import main

    sys.exit(main())
