"""`steadlith bench --memory`: the peak memory of chunking and comparing a document, as a
multiple of its size, each figure from a fresh interpreter.

The document is real Markdown (chunking.markdown_corpus repeated to --memory-mb; the
checkout's holds an emoji, so a str of it is four bytes a character). Rows, each under
both rules:

- `str` / `bytes`: the library, `chunk(text)` of the file read as a str (load_text) or
  as its checked UTF-8 bytes (load_utf8), then every chunk made (`result.chunks`); a
  `str` row is also given over the str object's own size (`peak_over_str`), which is
  up to 4 times the file's;
- `str-ascii`: the `str` row on the same text with its non-ASCII characters dropped
  (real text whose str takes one byte a character, as the file does);
- `json` / `jsonl`: the command `steadlith chunk FILE --format json|jsonl`, output to
  /dev/null;
- `compare`: `steadlith compare FILE EDITED` (EDITED: the file with 10 scattered word
  edits), per byte of both documents;
- `explain`: `steadlith explain FILE EDITED`, per byte of both documents;
- `lab`: `steadlith lab FILE --edits 3 --rules R --format json`, for each rule alone, the
  fixed-size baseline alone and the default set (LAB_SET) together: the peak is building
  the chunkers over the original, each edit afterwards is small;
- `audit`: `steadlith audit REPO --rules R --format json` over a repository of two
  commits, the file added then EDITED (per byte of both versions, as compare: a change
  holds its two versions and their chunkings, here with the fixed-size baseline's), for
  each rule alone and for both (the command's default);
- `sweep`: `steadlith sweep REPO --jobs 1 --set boundary_rule=R --format json` over the
  same repository: one set, in the command's own process (a pool worker's peak would
  not be the command's), per byte of both versions.

Netting: the peak is the process's VmHWM (/proc/self/status: its own high-water mark;
ru_maxrss would also carry this benchmark's memory over fork and exec). A library row
subtracts the high-water mark after the imports, before the file is read; a command row
subtracts the peak of the same command on a one-paragraph document (the interpreter,
the command's imports and its start). What is left is divided by the file's size (both
files' for compare): the memory a document costs, the document itself included (a str
row's text alone is 1 to 4 times the file, by its widest character: `str_bytes_per_char`).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from typing import Sequence

from ..kernel import select as kernel

MEMORY_TARGET = 4.0  # peak over the file's size (both files' for compare)
FORMS = ("str", "str-ascii", "bytes", "json", "jsonl", "compare", "explain", "lab", "audit", "sweep")
DEFAULT_FORMS = FORMS[:6]  # the others when asked for (--memory-forms): each row is a fresh run
HISTORY_FORMS = ("audit", "sweep")  # over a repository: the file, then its edited version
# the audit's rows: each rule alone, then both (its default: both chunkings and baselines held)
AUDIT_RULES = ("tttd-v1", "lmx2-v1", "tttd-v1,lmx2-v1")
RULES = ("tttd-v1", "lmx2-v1")
# the lab's rows: its chunkers alone, then its default set together (cli/lab.py DEFAULT_CHUNKERS)
LAB_SET = "tttd-v1,lmx2-v1,fixed"
LAB_RULES = ("tttd-v1", "lmx2-v1", "fixed", LAB_SET)
LAB_EDITS = "3"

# The high-water mark of this process image, in kB (ru_maxrss where /proc is missing).
_PEAK = """
def peak_kb():
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
def rss_kb():
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    except (OSError, StopIteration):
        return peak_kb()
"""

_LIBRARY_PROBE = _PEAK + """
import sys
import steadlith_core
from steadlith_core import chunk, ChunkerParams, Lmx2Params
from steadlith_core.kernel.allocator import keep_freed_memory
from steadlith_core.chunking.loader import load_utf8, load_text
keep_freed_memory()  # as the command does at start
path, form, rule = sys.argv[1:4]
before = peak_kb()
data = load_utf8(path) if form == "bytes" else load_text(path)
loaded = rss_kb()
# a str's storage: 1, 2 or 4 bytes a character, by its widest one
per_char = round((sys.getsizeof(data) - sys.getsizeof("")) / max(len(data), 1)) if isinstance(data, str) else 1
result = chunk(data, ChunkerParams() if rule == "tttd-v1" else Lmx2Params())
print(len(result.chunks), before, loaded, peak_kb(), steadlith_core.KERNEL, per_char, sys.getsizeof(data))
"""

# The command as a user runs it, its peak printed last on stderr.
_COMMAND_PROBE = _PEAK + """
import sys
from steadlith_core.cli.main import main
code = main(sys.argv[1:])
sys.stderr.write(f"\\n{peak_kb()}\\n")
sys.exit(code)
"""


def repeated_to(text: str, n_bytes: int) -> str:
    """`text` repeated (paragraph-joined) and cut at a line end to about n_bytes of UTF-8."""
    unit = len(text.encode("utf-8"))
    out = "\n\n".join([text] * max(1, -(-n_bytes // (unit + 2))))
    cut = out.rfind("\n", 0, n_bytes)  # ASCII-heavy Markdown: characters ~ bytes
    return out[:cut + 1] if cut > 0 else out


def _env(kernel_name: str) -> dict:
    env = dict(os.environ)
    env.pop(kernel.ENV_VAR, None)
    if kernel_name == "numpy":
        env[kernel.ENV_VAR] = "numpy"
    return env


def _rule_args(rule: str) -> list[str]:
    return [] if rule == "tttd-v1" else ["--set", f"boundary_rule={rule}"]


def _command_peak_kb(argv: Sequence[str], env: dict) -> int:
    r = subprocess.run([sys.executable, "-c", _COMMAND_PROBE, *argv], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, env=env)
    if r.returncode not in (0, 1):  # compare exits 1 only for --fail-on-violation
        raise RuntimeError(f"steadlith {' '.join(argv)} failed: {r.stderr.strip()[-400:]}")
    return int(r.stderr.split()[-1])


def _mb(kb: float) -> float:
    return round(kb * 1024 / 1e6, 1)  # MB of 10^6 bytes, as the document's size


def measure(form: str, rule: str, paths: dict[str, str], kernel_name: str) -> dict:
    """One row: `paths` holds "doc", "edited" and "small" (the baseline's document)."""
    env = _env(kernel_name)
    size = os.path.getsize(paths["doc"])
    row: dict = {"form": form, "rule": rule, "kernel": kernel_name}
    if form in ("str", "str-ascii", "bytes"):
        doc, probe_form = (paths["ascii"], "str") if form == "str-ascii" else (paths["doc"], form)
        size = os.path.getsize(doc)
        out = subprocess.run([sys.executable, "-c", _LIBRARY_PROBE, doc, probe_form, rule], capture_output=True,
                             text=True, check=True, env=env).stdout.split()
        chunks, before, loaded, peak = (int(x) for x in out[:4])
        row.update(chunks=chunks, baseline_mb=_mb(before), document_mb=_mb(loaded - before),
                   str_bytes_per_char=int(out[5]) if probe_form == "str" else None)
        net, total = peak - before, size
        if probe_form == "str":
            # the str's own size: 1, 2 or 4 bytes a character, so the file's ratio of a text
            # with one emoji starts at 4; over the str, the cost of chunking it shows
            str_size = int(out[6])
            row.update(str_object_mb=round(str_size / 1e6, 1), peak_over_str=round(net * 1024 / str_size, 2))
    elif form in ("json", "jsonl"):
        base = _command_peak_kb(["chunk", paths["small"], "--format", form, *_rule_args(rule)], env)
        peak = _command_peak_kb(["chunk", paths["doc"], "--format", form, *_rule_args(rule)], env)
        row["baseline_mb"] = _mb(base)
        net, total = peak - base, size
    elif form in ("compare", "explain"):
        base = _command_peak_kb([form, paths["small"], paths["small"], *_rule_args(rule)], env)
        peak = _command_peak_kb([form, paths["doc"], paths["edited"], *_rule_args(rule)], env)
        row["baseline_mb"] = _mb(base)
        net, total = peak - base, size + os.path.getsize(paths["edited"])
    elif form in HISTORY_FORMS:
        rules = ["--rules", rule] if form == "audit" else ["--jobs", "1", *_rule_args(rule)]
        base = _command_peak_kb([form, paths["small_repo"], *rules, "--format", "json"], env)
        peak = _command_peak_kb([form, paths["repo"], *rules, "--format", "json"], env)
        row["baseline_mb"] = _mb(base)
        net, total = peak - base, size + os.path.getsize(paths["edited"])
    elif form == "lab":
        lab = ["--edits", LAB_EDITS, "--rules", rule, "--format", "json"]
        base = _command_peak_kb(["lab", paths["small"], *lab], env)
        peak = _command_peak_kb(["lab", paths["doc"], *lab], env)
        row["baseline_mb"] = _mb(base)
        net, total = peak - base, size
    else:
        raise ValueError(f"unknown form {form!r}; known: {', '.join(FORMS)}")
    row.update(size_mb=round(total / 1e6, 1), peak_net_mb=_mb(net), peak_over_size=round(net * 1024 / total, 2))
    return row


def bench_memory(corpus: str, n_bytes: int, kernel_name: str | None = None, forms: Sequence[str] = DEFAULT_FORMS,
                 rules: Sequence[str] = RULES) -> list[dict]:
    """Every row of `forms` x `rules` on `corpus` (chunking.markdown_corpus) repeated to
    n_bytes (see the module)."""
    from .examples import scattered_edits

    kernel_name = kernel_name or kernel.active()
    with tempfile.TemporaryDirectory() as tmp:
        paths = {name: os.path.join(tmp, f"{name}.md") for name in ("doc", "edited", "small")}
        text = repeated_to(corpus, n_bytes)
        with open(paths["doc"], "w", encoding="utf-8") as f:
            f.write(text)
        if {"compare", "explain", *HISTORY_FORMS} & set(forms):
            with open(paths["edited"], "w", encoding="utf-8") as f:
                f.write(scattered_edits(text, 10))
        if "str-ascii" in forms:
            with open(paths.setdefault("ascii", os.path.join(tmp, "ascii.md")), "w", encoding="ascii") as f:
                f.write(text.encode("ascii", "ignore").decode("ascii"))
        del text
        small = corpus[: corpus.find("\n\n", 1000) + 1 or 1000]
        with open(paths["small"], "w", encoding="utf-8") as f:
            f.write(small)
        if set(HISTORY_FORMS) & set(forms):
            paths["repo"], paths["small_repo"] = os.path.join(tmp, "repo"), os.path.join(tmp, "small-repo")
            _two_commits(paths["repo"], [paths["doc"], paths["edited"]])
            with open(os.path.join(tmp, "small-edited.md"), "w", encoding="utf-8") as f:
                f.write(scattered_edits(small, 2))
            _two_commits(paths["small_repo"], [paths["small"], os.path.join(tmp, "small-edited.md")])
        return [measure(form, rule, paths, kernel_name) for form in forms
                for rule in (LAB_RULES if form == "lab" else AUDIT_RULES if form == "audit" else rules)]


def _two_commits(root: str, versions: Sequence[str]) -> None:
    """A repository at `root` whose one file, doc.md, is each of the files `versions` in
    turn, a commit each (pygit2: no `git` process)."""
    import pygit2

    from .git import MODE_BLOB

    repo = pygit2.init_repository(root, initial_head="main")
    parents: list = []
    for n, path in enumerate(versions):
        with open(path, "rb") as f:
            blob = repo.create_blob(f.read())
        index = pygit2.Index()
        index.add(pygit2.IndexEntry("doc.md", blob, MODE_BLOB))
        sig = pygit2.Signature("Bench", "bench@example.invalid", 1_700_000_000 + 60 * n, 0)
        parents = [repo.create_commit("refs/heads/main", sig, sig, f"Version {n}", index.write_tree(repo), parents)]


def format_memory(rows: Sequence[dict]) -> list[str]:
    lines = []
    if rows:
        lines.append("memory        peak over the document's size (both documents' for compare, explain, audit and sweep), net of the "
                     "interpreter and imports (library rows: the peak after importing; command rows: the same "
                     f"command on one paragraph); fresh process each   (target <= {MEMORY_TARGET:g}x)")
    for m in rows:
        extra = ""
        if m["form"] in ("str", "str-ascii"):
            what = "the text with its non-ASCII characters dropped; " if m["form"] == "str-ascii" else ""
            extra = (f"  ({what}the str alone: {m['str_bytes_per_char']} "
                     f"byte{'' if m['str_bytes_per_char'] == 1 else 's'} a character; "
                     f"{m['peak_over_str']:.2f}x of the str object's {m['str_object_mb']:.1f} MB)")
        verdict = "met" if m["peak_over_size"] <= MEMORY_TARGET else "not met"
        lines.append(f"memory        {m['size_mb']:6.1f} MB {m['form']:<7} {m['rule']:<7} {m['kernel']:<5} peak "
                     f"{m['peak_net_mb']:8.1f} MB = {m['peak_over_size']:5.2f}x   {verdict}{extra}")
    return lines
