"""lmx2-v1 through the one pipeline: its stages cached by exactly their inputs, and
Chunk.boundary reported alike for the chunks of both rules."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from steadlith_core import ChunkerParams, Lmx2Params, Pipeline, chunk, chunks_jsonl
from steadlith_core.chunking import document as document_module
from steadlith_core.chunking import pipeline as pipeline_module
from steadlith_core.chunking.boundaries import boundary_classes
from steadlith_core.bench.examples import generate_prose
from steadlith_core.report.export import chunking_to_json

TEXT = generate_prose(30_000, seed=9)
BASE = Lmx2Params(min_tokens=16, max_tokens=96, horizon=24, fill_horizon=20, key_tokens=12)


@pytest.fixture
def stage_calls(count_calls):
    """Counts calls of lmx2-v1's stage functions, by stage name."""
    calls = count_calls(pipeline_module, ("compute_keys", "key_maxima", "compute_primary", "compute_fill",
                                          "ChunkColumns", "segment_codes", "lmx2_cuts"))
    return count_calls(document_module, ("scan_text", "classes_of"), calls)  # a Document's text stages


@pytest.fixture
def maxima_given(monkeypatch):
    """Whether each call of the compiled cut stage (pipeline.lmx2_cuts) was handed the
    key maxima of its horizon, cached, instead of seeking them."""
    given: list[bool] = []
    original = pipeline_module.lmx2_cuts

    def spy(*args):
        given.append(args[-1] is not None)
        return original(*args)

    monkeypatch.setattr(pipeline_module, "lmx2_cuts", spy)
    return given


def _lean() -> bool:
    from steadlith_core.kernel import select

    return select.lmx2_lean()


def _shape(result):
    return result.params_hash, [(c.start_word, c.end_word, c.kind, c.boundary, c.hash) for c in result.chunks]


@pytest.mark.parametrize("change,reruns,maxima_kept", [
    ({"min_tokens": 12}, {"compute_primary": 1, "compute_fill": 1}, True),
    ({"horizon": 40}, {"key_maxima": 1, "compute_primary": 1, "compute_fill": 1}, False),
    ({"max_tokens": 120}, {"compute_fill": 1}, True),
    ({"fill_horizon": 15}, {"compute_fill": 1}, True),
])
def test_a_size_or_horizon_change_reruns_no_key_computation(maxima_given, stage_calls, change, reruns, maxima_kept):
    """Moving min, max or a horizon re-runs only the cut stages and the hashes (max and
    fill_horizon not even the primary cuts, min not the search for key maxima); the result is what a cold pipeline gives,
    and differs from before (the change mattered). The compiled kernel's cut stage is one
    call (lmx2_cuts), handed the key maxima unless the horizon changed."""
    pipeline = Pipeline()
    before = pipeline.chunk(TEXT, BASE)
    if _lean():
        assert stage_calls == Counter(scan_text=1, lmx2_cuts=1, ChunkColumns=1)
        reruns = {"lmx2_cuts": 1}
    else:
        assert stage_calls == Counter(scan_text=1, classes_of=1, compute_keys=1, key_maxima=1, compute_primary=1,
                                      compute_fill=1, ChunkColumns=1)
    stage_calls.clear()
    maxima_given.clear()
    changed = BASE.with_changes(**change)
    warm = pipeline.chunk(TEXT, changed)
    assert stage_calls == Counter(ChunkColumns=1, **reruns)
    assert maxima_given == ([maxima_kept] if _lean() else [])
    assert _shape(warm) == _shape(Pipeline().chunk(TEXT, changed))
    assert [c.hash for c in warm.chunks] != [c.hash for c in before.chunks]


@pytest.mark.parametrize("change", [{"key_tokens": 20}, {"boundary_preference": "off"}, {"token_counter": "words/1"}])
def test_a_key_change_recomputes_keys_but_never_the_text_stages(stage_calls, change):
    pipeline = Pipeline()
    pipeline.chunk(TEXT, BASE)
    stage_calls.clear()
    pipeline.chunk(TEXT, BASE.with_changes(**change))
    if _lean():  # the prefix sums the keys are made from belong to the text: kept
        assert stage_calls == Counter(lmx2_cuts=1, ChunkColumns=1)
    else:
        assert stage_calls == Counter(compute_keys=1, key_maxima=1, compute_primary=1, compute_fill=1, ChunkColumns=1)


def test_switching_rules_on_one_document_shares_its_text_stages(stage_calls):
    pipeline = Pipeline()
    pipeline.chunk(TEXT, ChunkerParams())
    lmx2 = pipeline.chunk(TEXT, BASE)
    again = pipeline.chunk(TEXT, ChunkerParams())
    assert stage_calls["scan_text"] == 1 and stage_calls["segment_codes"] == 1  # tttd-v1's cuts came from its cache
    assert (lmx2.boundary_rule, again.boundary_rule) == ("lmx2-v1", "tttd-v1")
    assert lmx2.diagnostics.margin == BASE.margin == lmx2.params.margin


def _classes_at_ends(result):
    classes = boundary_classes(result.text, result.words)
    n = result.word_count
    names = {0: "word", 1: "sentence", 2: "paragraph"}
    return [("end" if c.end_word == n else names[int(classes[c.end_word])]) for c in result.chunks]


@pytest.mark.parametrize("params", [
    ChunkerParams(min_tokens=16, max_tokens=96, primary_mask=0x1F, primary_remainder=0x1F),
    ChunkerParams(min_tokens=16, max_tokens=96, snap_mode="paragraph-sentence/1", snap_window_words=6),
    BASE,
], ids=["tttd", "tttd-snapping", "lmx2"])
def test_every_chunk_reports_the_class_of_its_end_cut(params):
    """Chunk.boundary is SPEC-lmx2 §4's class of the end cut for both rules: the same
    class array lmx2-v1's keys use, read at each chunk's end; all four appear."""
    result = chunk(TEXT, params)
    got = [c.boundary for c in result.chunks]
    assert got == _classes_at_ends(result)
    assert got[-1] == "end" and "end" not in got[:-1]
    assert {"paragraph", "sentence", "word"} <= set(got) or params.boundary_rule == "lmx2-v1"
    d = result.diagnostics
    interior = len(got) - 1
    assert (d.paragraph_boundaries, d.sentence_boundaries) == (got.count("paragraph"), got.count("sentence"))
    assert d.paragraph_share == pytest.approx(got.count("paragraph") / interior)
    assert d.sentence_share == pytest.approx(got.count("sentence") / interior)


def test_snapping_moves_cuts_to_breaks_and_the_boundaries_show_it():
    """What a reviewer reads off the share: snapping (and lmx2-v1's preference) put far
    more cuts at paragraph or sentence ends than tttd-v1 without it."""
    plain = chunk(TEXT, ChunkerParams(min_tokens=16, max_tokens=96)).diagnostics
    snapped = chunk(TEXT, ChunkerParams(min_tokens=16, max_tokens=96, snap_mode="paragraph-sentence/1",
                                        snap_window_words=8)).diagnostics
    lmx2 = chunk(TEXT, BASE).diagnostics
    share = lambda d: d.paragraph_share + d.sentence_share  # noqa: E731
    assert share(plain) < 0.5 < share(snapped)
    assert share(lmx2) > 0.8 > share(plain)


@pytest.mark.parametrize("params", [ChunkerParams(min_tokens=16, max_tokens=96), BASE], ids=["tttd", "lmx2"])
def test_json_and_jsonl_carry_the_boundary_and_the_rule(params):
    result = chunk(TEXT, params)
    doc = chunking_to_json(result)
    assert doc["boundary_rule"] == doc["params"]["boundary_rule"] == params.boundary_rule
    assert [c["boundary"] for c in doc["chunks"]] == [c.boundary for c in result.chunks]
    lines = [json.loads(line) for line in chunks_jsonl(result).splitlines()]
    assert [(x["kind"], x["boundary"]) for x in lines] == [(c.kind, c.boundary) for c in result.chunks]


def test_lmx2_diagnostics_count_kinds_and_sizes():
    result = chunk(TEXT, BASE)
    d = result.diagnostics
    kinds = Counter(c.kind for c in result.chunks)
    assert (d.primary, d.fill, d.long_word, d.end) == (kinds["primary"], kinds["fill"], kinds["long-word"], 1)
    assert d.chunks_under_min == sum(c.tokens < BASE.min_tokens for c in result.chunks)
    assert d.chunks_over_max == sum(c.tokens > BASE.max_tokens for c in result.chunks)
    assert (d.gate, d.margin) == (BASE.gate, BASE.margin)
    assert result.fingerprints is None and result.stages.keys.key_1.size == result.word_count + 1


def test_chunk_text_output_shows_kinds_sizes_and_the_share_of_cuts(tmp_path, capsys):
    from steadlith_core.cli.main import main

    doc = tmp_path / "doc.txt"
    doc.write_text(TEXT, encoding="utf-8")
    for params, kinds in ((BASE, "kinds         primary "), (ChunkerParams(min_tokens=16, max_tokens=96),
                                                            "kinds         primary ")):
        sets = [x for k, v in params.to_dict().items() for x in ("--set", f"{k}={v}")]
        assert main(["chunk", str(doc), *sets]) == 0
        out = capsys.readouterr().out
        d = chunk(TEXT, params).diagnostics
        share = next(line for line in out.splitlines() if line.startswith("cuts at"))
        assert f"paragraph ends {d.paragraph_boundaries} ({d.paragraph_share:.1%})" in share
        assert f"sentence ends {d.sentence_boundaries} ({d.sentence_share:.1%})" in share
        kinds_line = next(line for line in out.splitlines() if line.startswith(kinds))
        if params is BASE:
            assert f"fill {d.fill}" in kinds_line and f"long-word {d.long_word}" in kinds_line
            assert f"margin {BASE.margin} tokens" in out and "under min_tokens" in out
        else:
            assert f"backup {d.backup}" in kinds_line


def test_lmx2_kinds_take_the_shapes_and_colours_of_their_roles():
    """fill is drawn as backup (diamond, orange), long-word as a hard cut (triangle,
    vermillion), in both themes; the legend of each rule lists its own kinds."""
    from steadlith_core.report import style

    for theme in ("light", "dark"):
        colours = style.KIND_COLOURS[theme]
        assert colours["fill"] == colours["backup"] and colours["long-word"] == colours["hard"]
    assert (style.KIND_SHAPES["fill"], style.KIND_SHAPES["long-word"]) == ("diamond", "triangle")
    assert style.marker_kinds("lmx2-v1") == ("primary", "fill", "long-word", "end")
    assert style.marker_kinds("tttd-v1") == ("primary", "backup", "hard", "snapped", "end")
    assert style.kind_help("lmx2-v1", "primary") != style.kind_help("tttd-v1", "primary")


@pytest.mark.parametrize("form", ["str", "bytes"])
def test_lmx2_diagnostics_counted_from_codes_equal_the_counts_of_the_names(form):
    """The kinds and boundaries the diagnostics count in numpy (from their codes) are
    the names of the chunks counted one by one, on both kernels: with long words (a
    long-word cut), a one-chunk document and an empty one."""
    from steadlith_core.kernel import select as kernel

    long_word = TEXT[:3000] + " " + "x" * 2000 + " " + TEXT[3000:6000]
    for text in (TEXT, long_word, "one short paragraph.", ""):
        data = text if form == "str" else text.encode()
        for name in kernel.KERNELS:
            with kernel.using(name):
                result = Pipeline().chunk(data, BASE)
            d = result.diagnostics
            kinds = Counter(c.kind for c in result.chunks)
            bounds = Counter(c.boundary for c in result.chunks)
            assert (d.primary, d.fill, d.long_word, d.end) == (
                kinds["primary"], kinds["fill"], kinds["long-word"], kinds["end"])
            assert (d.paragraph_boundaries, d.sentence_boundaries, d.word_boundaries) == (
                bounds["paragraph"], bounds["sentence"], bounds["word"])
            if text is long_word:
                assert d.long_word > 0 and d.fill > 0 and d.paragraph_boundaries > 0
