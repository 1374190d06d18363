"""Build, check and smoke-test the one-folder bundle of the Steadlith Inspector.

    python packaging/bundle.py [--dist DIR] [--work DIR]    build DIR/steadlith-inspector/
    python packaging/bundle.py --smoke DIR [--out PNG]      smoke-test the bundle in DIR

The build runs PyInstaller (PYINSTALLER_RANGE) on packaging/steadlith-inspector.spec
in the current Python environment, which must have steadlith-core and steadlith-gui
installed (non-editable: the bundle takes the installed packages, not this checkout),
then checks what the folder holds and prints its size. Outputs go to DIR (default:
dist/ of the checkout, which git ignores) and the work files to build/pyinstaller-bundle.

The smoke test runs the bundled executable: `--version` (a line starting
"steadlith-gui " that names the kernel), the bundle's own probe (the kernel it loads,
the package data and the Qt platform plugins it finds), and an offscreen
`--demo --screenshot OUT.png --size 1366x768`, whose PNG is checked with the standard
library alone (signature, chunk CRCs, size, and more than a handful of colours).
Exit status 0 when everything holds, 1 otherwise. See packaging/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

NAME = "steadlith-inspector"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SPEC = HERE / f"{NAME}.spec"
PYINSTALLER_RANGE = ">=6.10,<7"  # same range as .ci/bundle installs
SCREENSHOT_SIZE = (1366, 768)
SMOKE_TIMEOUT = 120.0  # seconds for the screenshot run (a cold start reads ~230 MB)
MIN_COLOURS = 16  # a blank or single-colour window has a handful at most
INFO_FILE = "BUNDLE-INFO.txt"
# folders the bundle must not carry (modules are checked by the probe: most live in the
# executable's archive, not in files)
UNWANTED = ("tkinter", "langchain", "llama_index", "chonkie", "dask", "distributed", "pytest", "hypothesis",
            "PySide6/Qt/translations")


class Failed(Exception):
    """A check did not hold: the message says which."""


def log(message: str) -> None:
    print(f"bundle: {message}", flush=True)


def exe_name() -> str:
    return NAME + (".exe" if sys.platform == "win32" else "")


def size_of(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


# ----------------------------------------------------------------------------- build

def check_environment() -> dict[str, str]:
    """The build environment: PyInstaller in range, both packages installed (not from
    this checkout's source tree), PySide6-Essentials without the Add-ons. Returns what
    goes into BUNDLE-INFO.txt."""
    from importlib import metadata

    def version(dist: str) -> str | None:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return None

    pyinstaller = version("pyinstaller")
    if pyinstaller is None:
        raise Failed(f'PyInstaller is not installed: pip install "pyinstaller{PYINSTALLER_RANGE}"')
    major_minor = tuple(int(x) for x in pyinstaller.split(".")[:2])
    if not (6, 10) <= major_minor < (7, 0):
        raise Failed(f"PyInstaller {pyinstaller} is outside {PYINSTALLER_RANGE}")
    for dist in ("steadlith-core", "steadlith-gui", "PySide6-Essentials"):
        if version(dist) is None:
            raise Failed(f"{dist} is not installed here: pip install ./core . (from the checkout)")
    for dist in ("PySide6-Addons", "PySide6"):
        if version(dist) is not None:
            raise Failed(f"{dist} is installed: the project depends on PySide6-Essentials alone, and the "
                         "bundle must not pick up the Add-ons; build in a fresh virtual environment")
    # the packages as installed, from outside the checkout (its source tree would shadow them)
    code = ("import json, steadlith_core, steadlith_gui; print(json.dumps({'kernel': steadlith_core.KERNEL, "
            "'core': steadlith_core.__file__, 'gui': steadlith_gui.__file__}))")
    found = json.loads(subprocess.run([sys.executable, "-c", code], cwd=tempfile.gettempdir(), check=True,
                                      capture_output=True, text=True).stdout)
    for key in ("core", "gui"):
        if Path(found[key]).resolve().is_relative_to(ROOT):
            raise Failed(f"{found[key]} is in the checkout: install the packages non-editable (pip install ./core .)")
    return {
        "steadlith-gui": version("steadlith-gui"),
        "steadlith-core": version("steadlith-core"),
        "kernel": found["kernel"],
        "PySide6-Essentials": version("PySide6-Essentials"),
        "pyinstaller": pyinstaller,
        "python": sys.version.split()[0],
        "platform": sys.platform,
    }


def check_bundle(folder: Path, info: dict[str, str]) -> None:
    """What the folder must hold, found by name under it wherever PyInstaller put it."""
    files = [p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()]

    def need(what: str, test) -> None:
        if not any(test(f) for f in files):
            raise Failed(f"the bundle has no {what}")

    need("executable", lambda f: f == exe_name())
    need("LICENSE beside the executable", lambda f: f == "LICENSE")
    need("NOTICE beside the executable", lambda f: f == "NOTICE")
    need("core data (steadlith_core/data/*.md)", lambda f: "steadlith_core/data/" in f and f.endswith(".md"))
    need("core data NOTICE (steadlith_core/data/NOTICE)", lambda f: f.endswith("steadlith_core/data/NOTICE"))
    for demo in sorted((ROOT / "steadlith_gui" / "resources").rglob("*")):
        if demo.is_file() and "__pycache__" not in demo.parts:
            rel = demo.relative_to(ROOT).as_posix()
            need(rel, lambda f, rel=rel: f.endswith(rel))
    if info["kernel"] == "c":
        need("compiled kernel of the core", lambda f: "steadlith_core/" in f and "/_kernel" in f
             and f.endswith((".so", ".pyd")))
    plugins = {"linux": ("offscreen", "xcb"), "darwin": ("offscreen", "cocoa"), "win32": ("offscreen", "windows")}
    for plugin in plugins.get(sys.platform, ("offscreen",)):
        need(f"Qt platform plugin {plugin}", lambda f, plugin=plugin: "/platforms/" in f and f"q{plugin}." in f)
    for unwanted in UNWANTED:
        bad = [f for f in files if f"/{unwanted}/" in f"/{f}"]
        if bad:
            raise Failed(f"the bundle carries {unwanted}, which the inspector never imports: {bad[0]}")


def build(dist: Path, work: Path) -> Path:
    started = time.monotonic()
    info = check_environment()
    log(f"building {NAME} with PyInstaller {info['pyinstaller']}, Python {info['python']}, "
        f"steadlith-gui {info['steadlith-gui']}, steadlith-core {info['steadlith-core']} "
        f"(kernel {info['kernel']}), PySide6-Essentials {info['PySide6-Essentials']}")
    dist.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    # run outside the checkout: from its root, `import steadlith_gui` and the package
    # metadata would be read from the source tree (and a stale *.egg-info) instead of
    # the installed packages
    command = [sys.executable, "-m", "PyInstaller", str(SPEC), "--noconfirm", "--clean",
               "--distpath", str(dist), "--workpath", str(work), "--log-level", "WARN"]
    done = subprocess.run(command, cwd=work)
    if done.returncode != 0:
        raise Failed(f"PyInstaller failed (exit {done.returncode})")
    folder = dist / NAME
    (folder / INFO_FILE).write_text(
        "Steadlith Inspector, one-folder bundle (packaging/bundle.py)\n"
        + "".join(f"{key}: {value}\n" for key, value in info.items()), encoding="utf-8")
    check_bundle(folder, info)
    log(f"built {folder} in {time.monotonic() - started:.0f} s")
    log(f"bundle size: {mib(size_of(folder))} ({sum(1 for p in folder.rglob('*') if p.is_file())} files)")
    return folder


# ----------------------------------------------------------------------------- smoke

def png_check(path: Path, size: tuple[int, int]) -> int:
    """Check that `path` is a whole, valid PNG of `size` (8-bit RGB or RGBA, not
    interlaced, as Qt writes a window grab) and return its number of distinct colours.
    Standard library only: chunks and CRCs by hand, pixels through zlib and the five
    PNG row filters."""
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise Failed(f"{path} is not a PNG (bad signature)")
    pos, chunks = 8, []
    while pos < len(data):
        if pos + 12 > len(data):
            raise Failed(f"{path}: truncated chunk at byte {pos}")
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]
        if len(body) != length or zlib.crc32(kind + body) != crc:
            raise Failed(f"{path}: bad {kind!r} chunk (length or CRC)")
        chunks.append((kind, body))
        pos += 12 + length
    if not chunks or chunks[0][0] != b"IHDR" or chunks[-1][0] != b"IEND":
        raise Failed(f"{path}: does not start with IHDR and end with IEND")
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    if (width, height) != size:
        raise Failed(f"{path} is {width}x{height}, expected {size[0]}x{size[1]}")
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        raise Failed(f"{path}: unexpected format (bit depth {depth}, colour type {colour}, interlace {interlace})")
    raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    stride = width * channels
    if len(raw) != height * (stride + 1):
        raise Failed(f"{path}: pixel data is {len(raw)} bytes, expected {height * (stride + 1)}")
    colours: set[bytes] = set()
    prev = bytearray(stride)
    for y in range(height):
        kind, row = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:  # Sub
            for i in range(channels, stride):
                row[i] = (row[i] + row[i - channels]) & 0xFF
        elif kind == 2:  # Up
            row = bytearray((a + b) & 0xFF for a, b in zip(row, prev))
        elif kind == 3:  # Average
            for i in range(stride):
                left = row[i - channels] if i >= channels else 0
                row[i] = (row[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif kind == 4:  # Paeth
            for i in range(stride):
                a = row[i - channels] if i >= channels else 0
                b, c = prev[i], (prev[i - channels] if i >= channels else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        elif kind != 0:
            raise Failed(f"{path}: unknown row filter {kind} in row {y}")
        if y % 4 == 0:  # every fourth row is plenty to tell a window from a blank
            colours.update(bytes(row[i:i + channels]) for i in range(0, stride, channels))
        prev = row
    return len(colours)


def run(command: list[str], env: dict[str, str], timeout: float, cwd: Path) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failed(f"{' '.join(command)} did not finish within {timeout:.0f} s") from None


def expected_kernel(folder: Path) -> str | None:
    info = folder / INFO_FILE
    if info.is_file():
        for line in info.read_text(encoding="utf-8").splitlines():
            if line.startswith("kernel: "):
                return line.split(": ", 1)[1].strip()
    return None


def smoke(target: Path, out: Path | None, expect_kernel: str | None) -> None:
    folder = target if (target / exe_name()).is_file() else target / NAME
    exe = folder / exe_name()
    if not exe.is_file():
        raise Failed(f"no {exe_name()} in {target} or {target / NAME}")
    kernel = expect_kernel or expected_kernel(folder) or "c"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STEADLITH_", "PYTHON", "QT_"))}
    env["QT_QPA_PLATFORM"] = "offscreen"
    scratch = Path(tempfile.mkdtemp(prefix="steadlith-smoke-"))
    env["HOME"] = str(scratch)  # no settings of the user's are read or left behind
    env["XDG_CONFIG_HOME"] = str(scratch / "config")
    env["XDG_RUNTIME_DIR"] = str(scratch / "runtime")
    (scratch / "runtime").mkdir(mode=0o700)
    try:
        started = time.monotonic()
        done = run([str(exe), "--version"], env, 60, scratch)
        line = done.stdout.strip().splitlines()[0] if done.stdout.strip() else ""
        if done.returncode != 0 or not line.startswith("steadlith-gui "):
            raise Failed(f"--version: exit {done.returncode}, printed {line!r}; stderr: {done.stderr.strip()[-500:]}")
        kernel_words = {"c": "compiled kernel", "numpy": "numpy fallback"}
        if kernel_words.get(kernel, kernel) not in line:
            raise Failed(f"--version does not name the {kernel_words.get(kernel, kernel)}: {line!r}")
        log(f"--version ({time.monotonic() - started:.1f} s): {line}")

        started = time.monotonic()
        done = run([str(exe)], {**env, "STEADLITH_BUNDLE_PROBE": "1"}, 60, scratch)
        if done.returncode != 0:
            raise Failed(f"probe: exit {done.returncode}; stderr: {done.stderr.strip()[-500:]}")
        probe = json.loads(done.stdout.strip().splitlines()[-1])
        if probe["kernel"] != kernel:
            raise Failed(f"the bundle loads kernel {probe['kernel']!r}, expected {kernel!r}")
        if not any(n.endswith(".md") for n in probe["core_data"]) or "NOTICE" not in probe["core_data"]:
            raise Failed(f"the core's package data is incomplete in the bundle: {probe['core_data']}")
        if len(probe["gui_demo"]) < 2:
            raise Failed(f"the GUI's demo documents are missing in the bundle: {probe['gui_demo']}")
        missing = [name for name, version in probe["libraries"].items() if not version]
        if missing or probe["unwanted"]:
            raise Failed(f"libraries missing from the bundle: {missing}; present but unwanted: {probe['unwanted']}")
        wanted = ("offscreen", "xcb") if sys.platform.startswith("linux") else ("offscreen",)
        for plugin in wanted:
            if not any(f"q{plugin}." in p for p in probe["platform_plugins"]):
                raise Failed(f"Qt finds no {plugin} platform plugin in the bundle: {probe['platform_plugins']}")
        log(f"probe ({time.monotonic() - started:.1f} s): kernel {probe['kernel']}, core data "
            f"{probe['core_data']}, demo {probe['gui_demo']}, platforms "
            f"{[p for p in probe['platform_plugins'] if any(w in p for w in wanted)]}, libraries "
            f"{', '.join(f'{k} {v}' for k, v in probe['libraries'].items())}")

        png = (out or folder.parent / f"smoke-{SCREENSHOT_SIZE[0]}x{SCREENSHOT_SIZE[1]}.png").resolve()
        png.parent.mkdir(parents=True, exist_ok=True)
        png.unlink(missing_ok=True)
        started = time.monotonic()
        command = [str(exe), "--demo", "--screenshot", str(png), "--size", "%dx%d" % SCREENSHOT_SIZE]
        done = run(command, env, SMOKE_TIMEOUT, scratch)
        took = time.monotonic() - started
        if done.returncode != 0:
            raise Failed(f"screenshot run: exit {done.returncode} after {took:.1f} s; stderr: {done.stderr.strip()[-800:]}")
        if not png.is_file():
            raise Failed(f"screenshot run exited 0 but wrote no {png}")
        colours = png_check(png, SCREENSHOT_SIZE)
        if colours <= MIN_COLOURS:
            raise Failed(f"{png} looks blank: {colours} distinct colours")
        log(f"screenshot ({took:.1f} s): {png}, {SCREENSHOT_SIZE[0]}x{SCREENSHOT_SIZE[1]}, "
            f"{png.stat().st_size} bytes, {colours} distinct colours")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


# ----------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bundle.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist",
                        help="where to put the bundle folder %s/ (default: dist/ of the checkout)" % NAME)
    parser.add_argument("--work", type=Path, default=None,
                        help="PyInstaller's work folder (default: build/pyinstaller-bundle of the checkout)")
    parser.add_argument("--smoke", type=Path, metavar="DIR",
                        help="smoke-test the bundle in DIR (the --dist folder, or the bundle folder itself) "
                             "instead of building")
    parser.add_argument("--out", type=Path, metavar="PNG",
                        help="with --smoke: where to write the screenshot (default: beside the bundle folder)")
    parser.add_argument("--expect-kernel", choices=("c", "numpy"),
                        help="with --smoke: the kernel the bundle must load (default: the one the build "
                             "environment had, from %s)" % INFO_FILE)
    args = parser.parse_args(argv)
    try:
        if args.smoke is not None:
            started = time.monotonic()
            smoke(args.smoke.resolve(), args.out, args.expect_kernel)
            log(f"smoke test passed in {time.monotonic() - started:.1f} s")
        else:
            build(args.dist.resolve(), (args.work or ROOT / "build" / "pyinstaller-bundle").resolve())
    except Failed as error:
        print(f"bundle: FAILED: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
