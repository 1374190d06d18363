"""One document's cached stages (Document) and the caches a Pipeline keeps them in.

A Document holds what belongs to the text whatever the parameters (its scan: words,
offsets, paragraph and sentence flags, symbols; its canonical text; its token totals
per counter) and, in named `stage` caches, each rule's stages keyed by exactly their
inputs (pipeline.py runs the rules over them). How much it keeps is the choice between
re-chunking fast (a str the inspector re-chunks keeps everything) and holding little
(a document given as bytes, or a long str, is `lean`): see the class.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import cachetools
import numpy as np

from ..kernel import select as text_kernel
from ..kernel.segment import SnapPoints
from ..kernel.select import check_utf8, scan as scan_text, scan_candidates, scan_checked
from . import tokens as token_counters
from .boundaries import classes_of
from .canonical import CanonicalText
from .lmx2_params import Lmx2Params
from .normalize import stream_of
from .params import ChunkerParams
from .tokens import TokenCounter


class LRU:
    """A bounded least-recently-used cache owned by one object (a Pipeline's documents, a
    document's stages, an Analysis's diffs): instances, never module-level caches, so
    dropping a Pipeline lets its documents go. `get(key, make)` returns the cached value
    or makes and keeps it, evicting the least recently used past `size` entries.

    The entries are a `cachetools.LRUCache` (`data`); reading one through `peek` neither
    makes it nor refreshes its recency."""

    def __init__(self, size: int):
        self.size = size
        self.data: cachetools.LRUCache = cachetools.LRUCache(maxsize=size)

    def get(self, key: Any, make: Callable[[], Any]) -> Any:
        try:
            return self.data[key]
        except KeyError:
            pass
        value = make()
        if self.size > 0:  # a cache of size 0 keeps nothing: the value is only returned
            self.data[key] = value
        return value

    def peek(self, key: Any) -> Any:
        """The cached value of `key`, or None."""
        return cachetools.Cache.__getitem__(self.data, key) if key in self.data else None

    def peek_items(self) -> list[tuple[Any, Any]]:
        """Every (key, value) cached."""
        return [(key, cachetools.Cache.__getitem__(self.data, key)) for key in self.data]


class DocumentCache:
    """The documents a Pipeline keeps, found by their text without hashing it.

    A dict keyed by the text would hash all of it for every new document (a str caches
    its hash, but a new object has none yet: a whole pass over the text before any
    chunking). Here a lookup compares the text with the few cached ones: by identity,
    then, only when the lengths agree, by equality (a memcmp that stops at the first
    difference). The most recently used `size` documents are kept."""

    def __init__(self, size: int):
        self.size = size
        self._entries: list[tuple[str | bytes, Any]] = []  # least recently used first

    def _index(self, text: str | bytes) -> int:
        entries = self._entries
        for i in range(len(entries) - 1, -1, -1):
            cached = entries[i][0]
            if cached is text or (len(cached) == len(text) and type(cached) is type(text) and cached == text):
                return i
        return -1

    def find(self, text: str | bytes) -> Any:
        """The cached value for `text`, or None (not counted as a use)."""
        i = self._index(text)
        return self._entries[i][1] if i >= 0 else None

    def get(self, text: str | bytes, make: Callable[[], Any]) -> Any:
        entries = self._entries
        i = self._index(text)
        if i >= 0:
            if i != len(entries) - 1:
                entries.append(entries.pop(i))
            return entries[-1][1]
        value = make()
        entries.append((text, value))
        if len(entries) > self.size:
            del entries[: len(entries) - self.size]
        return value

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


# From this length on (in characters) a str document is chunked lean (Document): its
# per-word caches would cost more memory (12 bytes a word, about 1.9 times the text of
# Markdown) than re-making them costs time (a mask change re-rolls the window: about
# 2 ms a MB with the compiled kernel). The inspector's interactive sizes stay below it.
LEAN_STR_CHARS = 32 * 2**20

# Up to this many bytes, a bytes document that stores its symbols (lmx2-v1; tttd-v1 where
# its window is not rolled in the scan) takes its chars4/1 running total from the scan
# that checks it (select.scan_checked) instead of a pass over the offsets after the cut
# pass. The total then lives beside the symbols through that pass: 4 bytes a word more
# at the peak (about 0.6 times the size of Markdown), which past this size counts
# against the peak-memory bound more than the pass it saves (about 5 % of the CPU
# time of chunking 1 MB) is worth.
SCAN_TOTAL_BYTES = 4 * 2**20


class Document:
    """Cached stages of one text. The text-only stages are computed once, eagerly;
    token counts once per counter; a rule's own stages in its named `stage` caches.

    A document given as bytes is the lean path of one-shot runs (`steadlith chunk`):
    once tttd-v1 has its candidates, or lmx2-v1 its window hashes (under the compiled
    kernel its cuts, run_lmx2_lean), its symbols (8 bytes a word, the largest array of a
    scan) are let go, and scanned again only if another
    window, polynomial, mask or key window needs them; its per-word tokens are never kept
    (the running total gives them), nor lmx2-v1's keys, nor tttd-v1's fingerprints.
    Under the compiled kernel its canonical text is never copied whole
    (canonical.DocumentCanonical), and its running total is int32 (_counted).
    A str document, what the inspector re-chunks, keeps them all while it is shorter
    than LEAN_STR_CHARS; a longer one is `lean` too, and under the compiled kernel is
    chunked as its UTF-8 is (lean_utf8: the str's own bytes when it is ASCII), the
    caller's str to every reader of its text (elsewhere, or without `str_utf8`, its word
    stream keeps its symbols and its canonical text is written whole).
    `word_symbols` (a Pipeline of a comparison: the word diff compares words through
    their symbols) keeps a lean document's symbols on its word stream, once, instead of
    letting them go.

    Bytes are checked as UTF-8 here (UnicodeDecodeError): under the compiled kernel by
    the scan itself as it reads them (select.scan_checked), not in a pass of their own.
    `first`, the parameters a lean document is made for, lets that scan do more in the
    same pass: for tttd-v1, roll their window (select.scan_candidates), whose candidates
    (and chars4/1 running total) are cached as run_tttd caches them, and no symbol is
    ever stored (so not where the word stream keeps them, `word_symbols`); for either
    rule under chars4/1, total the tokens (cached as _counted(counter, narrow=True)
    keeps them; where the symbols are stored, only up to SCAN_TOTAL_BYTES)."""

    def __init__(self, text: str | bytes, word_symbols: bool = False, str_utf8: bool = True,
                 first: ChunkerParams | Lmx2Params | None = None):
        self.document = text  # a str, or UTF-8 bytes (checked by the scan, or check_utf8)
        self.lean = isinstance(text, bytes) or len(text) >= LEAN_STR_CHARS
        # the UTF-8 a lean document is scanned from, None for a str scanned as itself: a
        # long str only under the compiled kernel, whose scan of UTF-8 writes no canonical
        # copy (the numpy scan encodes a str itself, and keeps nothing of the encoding)
        self._utf8 = (text if isinstance(text, bytes) else
                      lean_utf8(text) if self.lean and str_utf8 and text_kernel.KERNEL == "c" else None)
        # one pass of the text kernel, nothing per word in Python; sentence ends are
        # tested when first asked for (CanonicalText), for the numpy scan
        # a lean document's canonical text is made chunk by chunk from its UTF-8
        # (canonical.DocumentCanonical) where the compiled kernel runs: not a second copy
        utf8 = self._utf8
        fused = None
        counter = token_counters.get_counter(first.token_counter) if first is not None else None
        chars4 = counter is not None and token_counters.is_builtin_chars4(counter)
        if isinstance(first, ChunkerParams) and utf8 is not None and not word_symbols:
            masks = (first.primary_mask, first.primary_remainder, first.backup_mask, first.backup_remainder)
            fused = scan_candidates(utf8, first.window_words, first.polynomial, masks, chars4=chars4)
        cum = None
        if fused is not None:
            raw, cum = fused[0], fused[3]
        elif isinstance(text, bytes) and (checked := scan_checked(
                text, chars4=chars4 and len(text) <= SCAN_TOTAL_BYTES)) is not None:
            raw, cum = checked
        else:
            if isinstance(text, bytes):
                check_utf8(text)
            raw = scan_text(text if utf8 is None else utf8, sentence_ends=False, lean=utf8 is not None)
        self.words = stream_of(text, raw, word_symbols or utf8 is None)
        self._symbols: np.ndarray | None = raw.symbols
        self.canonical = CanonicalText.of_scan(raw, utf8)
        self._snap_points: SnapPoints | None = None
        self._tokens = LRU(4)
        self._token_dtypes: dict[TokenCounter, np.dtype] = {}
        self._stages: dict[str, LRU] = {}
        if fused is not None:  # the stages run_tttd would make first, cached as they cache them
            self.stage("candidates").get((first.window_words, first.polynomial) + masks, lambda: fused[1:3])
        if cum is not None:  # what _counted(counter, narrow=True) keeps: the int32 total
            self._tokens.get(counter, lambda: (None, cum))
            self._token_dtypes[counter] = np.dtype(np.int32)

    @property
    def text(self) -> str:
        """The document as a str (decoded on first use when it was given as bytes)."""
        return self.words.source

    def __getstate__(self) -> dict:
        # a long ASCII str's own bytes are read through a memoryview, which does not pickle
        state = self.__dict__.copy()
        if isinstance(self._utf8, memoryview):
            state["_utf8"] = bytes(self._utf8)
        return state

    @property
    def utf8(self) -> bytes | memoryview | None:
        """The UTF-8 a lean document is scanned from (the bytes given, or a long str's,
        lean_utf8), None for a str scanned as itself: what a rule that keeps less for a
        bytes document can test instead of the document's type."""
        return self._utf8

    @property
    def symbols(self) -> np.ndarray:
        """s_k of every word (docs/contract/tttd-v1.md#symbols): the word stream's when it
        keeps them (a compared document), else scanned again if they were let go."""
        if self._symbols is None and self.words.symbols is not None:
            return self.words.symbols
        if self._symbols is None:
            utf8 = self._utf8
            self._symbols = scan_text(self.document if utf8 is None else utf8, sentence_ends=False,
                                      lean=utf8 is not None).symbols
        return self._symbols

    def take_symbols(self) -> np.ndarray:
        """The symbols, let go by the document (a bytes document's, see the class): the
        caller may then hold the only reference to them."""
        symbols = self.symbols
        self._symbols = None
        return symbols

    def spare_symbols(self) -> None:
        """Let the symbols go if this is a lean document whose word stream does not
        carry them (see the class)."""
        if self._utf8 is not None and self.words.symbols is None:
            self._symbols = None

    def stage(self, name: str, size: int = 8) -> LRU:
        """The cache of one rule stage, keyed by exactly the inputs of that stage."""
        cache = self._stages.get(name)
        if cache is None:
            cache = self._stages[name] = LRU(size)
        return cache

    def tokens(self, counter: TokenCounter) -> tuple[np.ndarray, np.ndarray]:
        """(tokens of each word, cumulative tokens) under `counter`."""

        tok, cum = self._counted(counter)
        return (tok if tok is not None else per_word(cum, self._token_dtypes[counter])), cum

    def _counted(self, counter: TokenCounter, narrow: bool = False) -> tuple[np.ndarray | None, np.ndarray]:
        """(tokens of each word, or None for a lean document, which keeps only the
        cumulative tokens: the per-word ones are their differences), cumulative tokens.

        `narrow` (either rule on a bytes document under the compiled kernel, whose cut
        passes read the running total as it is and by differences): when the total is
        first counted, it may be int32 where it surely fits (the compiled chars4/1
        decides), half the largest array such a run keeps. lmx2-v1's numpy stages add
        token distances to it and ask for int64 (wide_cum)."""

        def count():
            counted = counter.count_and_total(self.words, keep_counts=not self.lean,
                                              narrow=narrow and self._utf8 is not None)
            self._token_dtypes[counter] = counted.dtype
            return counted.counts, counted.total

        # keyed by the counter itself, not its id: an id re-registered with another
        # function must not be answered from the cache
        return self._tokens.get(counter, count)

    def counted(self, counter: TokenCounter) -> bool:
        """Whether the running total under `counter` is made (by the scan, or asked for)."""
        return self._tokens.peek(counter) is not None

    def tokens_cum(self, counter: TokenCounter, narrow: bool = False) -> np.ndarray:
        """tokens(counter)[1] alone (see _counted for `narrow`)."""
        return self._counted(counter, narrow)[1]

    def wide_cum(self, counter: TokenCounter) -> np.ndarray:
        """tokens_cum(counter) as int64: a narrow total counted for tttd-v1 is widened
        for the run (not kept)."""
        cum = self._counted(counter)[1]
        return frozen(cum.astype(np.int64)) if cum.dtype != np.int64 else cum

    def word_tokens(self, counter: TokenCounter) -> "np.ndarray | LazyTokens":
        """tokens(counter)[0], or for a lean document what makes it when asked."""
        tok, cum = self._counted(counter)
        return tok if tok is not None else LazyTokens(cum, self._token_dtypes[counter])

    @property
    def classes(self) -> np.ndarray:
        """The boundary class of every cut (boundaries.boundary_classes): text only, computed
        once a rule first needs them all (lmx2-v1's keys)."""
        return self.stage("classes", 1).get(None, lambda: frozen(classes_of(self.words.para, self.canonical.sentence_ends)))

    @property
    def snap_points(self) -> SnapPoints:
        """Text-only, but computed only once snapping is first asked for."""
        if self._snap_points is None:
            self._snap_points = SnapPoints.of_flags(self.words.para, self.canonical.sentence_ends)
        return self._snap_points


def lean_utf8(text: str) -> bytes | memoryview | None:
    """The UTF-8 a lean str document is scanned from (None when it has none: a lone
    surrogate, only possible in a str built in Python, keeps the str scan). An ASCII str
    is its own UTF-8: under the compiled kernel, a read-only view of the str's own bytes
    (the interpreter's UTF-8 of an ASCII str is its data, no copy), which keeps the str
    alive; otherwise the encoded copy, a quarter of a str of four bytes a character."""
    if text.isascii() and text_kernel.KERNEL == "c":
        import ctypes

        size = ctypes.c_ssize_t()
        data = _as_utf8()(text, ctypes.byref(size))
        if data:
            view = (ctypes.c_char * size.value).from_address(data)
            view.owner = text  # the bytes are the str's: they live while it does
            return memoryview(view).cast("B").toreadonly()
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return None


@functools.lru_cache(maxsize=1)
def _as_utf8():
    """PyUnicode_AsUTF8AndSize of the C API (imported when a long ASCII str is first chunked)."""
    import ctypes

    f = ctypes.pythonapi.PyUnicode_AsUTF8AndSize
    f.restype, f.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.POINTER(ctypes.c_ssize_t)]
    return f


def per_word(cum: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The per-word tokens whose running total is `cum`, in `dtype`, with no int64
    temporary of the whole length."""
    tok = np.empty(cum.size - 1, dtype=dtype)
    np.subtract(cum[1:], cum[:-1], out=tok, casting="unsafe")  # every difference is a count that fit in dtype
    tok.flags.writeable = False
    return tok


class LazyTokens:
    """Makes a lean document's per-word tokens when a Chunking is asked for them."""

    def __init__(self, cum: np.ndarray, dtype: np.dtype):
        self.cum, self.dtype = cum, dtype

    def __call__(self) -> np.ndarray:
        return per_word(self.cum, self.dtype)


def frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a
