"""Each command's loader budget is what that command needs, per rule
(loader.COMMAND_MEMORY, measured by `steadlith bench --memory-only`): the loader refuses
the documents that would not fit in MEMORY_BUDGET at that figure, and admits the rest.
The budget is shrunk here so that a small document stands for a large one."""

from __future__ import annotations

import pytest

from cli_helpers import run
from git_history import History
from steadlith_core.chunking import loader
from steadlith_core.kernel import select as kernel
from steadlith_core.chunking.loader import COMMAND_MEMORY, MEMORY_PER_INPUT_BYTE, human_bytes, memory_per_input_byte

LAB_SET = "tttd-v1,lmx2-v1,fixed"
TEXT = "A sentence of words that goes on. Another one follows here, longer still.\n\n" * 12
LMX2 = ["--set", "boundary_rule=lmx2-v1"]


def test_the_figures_are_per_command_and_rule_and_the_generic_one_is_the_costliest():
    figures = COMMAND_MEMORY[kernel.KERNEL]
    assert memory_per_input_byte("chunk", ["tttd-v1"]) == figures["chunk"]["tttd-v1"]
    assert memory_per_input_byte("chunk", ["lmx2-v1"]) == figures["chunk"]["lmx2-v1"]
    assert memory_per_input_byte("chunk", ["tttd-v1", "lmx2-v1"]) == max(figures["chunk"].values())
    assert memory_per_input_byte("chunk") == max(figures["chunk"].values())  # no rule said: the costliest
    assert memory_per_input_byte("audit", ["tttd-v1"]) == figures["audit"]["tttd-v1"]
    assert memory_per_input_byte("audit", ["tttd-v1", "lmx2-v1"]) == figures["audit"]["tttd-v1,lmx2-v1"]
    assert memory_per_input_byte("sweep") == max(figures["sweep"].values())
    assert memory_per_input_byte("window") == max(figures["window"].values())
    # the costliest of the `steadlith` commands (the window, a process of its own, has its own)
    assert MEMORY_PER_INPUT_BYTE == max(f for name, c in figures.items() if name != "window" for f in c.values())
    for kernel_figures in COMMAND_MEMORY.values():  # lmx2-v1 costs at least what tttd-v1 does everywhere
        assert all(c["lmx2-v1"] >= c["tttd-v1"] for c in kernel_figures.values())
        # the audit's default of both rules costs at least either alone
        assert kernel_figures["audit"]["tttd-v1,lmx2-v1"] >= kernel_figures["audit"]["lmx2-v1"]


def test_every_command_that_reads_through_the_loader_is_measured_on_both_kernels():
    for kernel_figures in COMMAND_MEMORY.values():
        assert set(kernel_figures) == {"chunk", "compare", "explain", "lab", "audit", "sweep", "window"}
        assert set(kernel_figures["lab"]) == {"tttd-v1", "lmx2-v1", "fixed", LAB_SET}
        # each chunker alone costs less than the lab's default set of them together
        assert all(kernel_figures["lab"][r] <= kernel_figures["lab"][LAB_SET] for r in LAB_SET.split(","))


def test_the_lab_takes_the_figure_of_its_chunkers():
    from steadlith_core.kernel import select as kernel

    lab = COMMAND_MEMORY[kernel.KERNEL]["lab"]
    assert memory_per_input_byte("lab", ["lmx2-v1"]) == lab["lmx2-v1"]  # one chunker: its own
    assert memory_per_input_byte("lab", ["fixed"]) == lab["fixed"]
    # several: the measured set holding them, not the costliest of them alone
    assert memory_per_input_byte("lab", ["tttd-v1", "fixed"]) == lab[LAB_SET]
    assert memory_per_input_byte("lab", LAB_SET.split(",")) == lab[LAB_SET]
    assert memory_per_input_byte("lab", ["tttd-v1", "tttd-v1"]) == lab["tttd-v1"]  # named twice is one
    assert memory_per_input_byte("lab", ["langchain-recursive"]) == max(lab.values())  # not measured: the costliest


@pytest.fixture
def budget(monkeypatch):
    """MEMORY_BUDGET set so that chunk under tttd-v1 admits exactly len(TEXT) bytes."""
    size = len(TEXT.encode())
    monkeypatch.setattr(loader, "MEMORY_BUDGET", size * memory_per_input_byte("chunk", ["tttd-v1"]))
    return size


@pytest.mark.parametrize("rule", ["tttd-v1", "lmx2-v1"])
def test_chunk_admits_what_fits_its_rule_and_refuses_the_rest(capsys, tmp_path, monkeypatch, rule):
    args = LMX2 if rule == "lmx2-v1" else []
    size = len(TEXT.encode())
    monkeypatch.setattr(loader, "MEMORY_BUDGET", size * memory_per_input_byte("chunk", [rule]))
    doc = tmp_path / "doc.md"
    doc.write_text(TEXT, encoding="utf-8")
    code, out, err = run(capsys, "chunk", str(doc), "--format", "jsonl", *args)
    assert code == 0 and out, err  # exactly at the rule's limit
    doc.write_text(TEXT + "x", encoding="utf-8")  # one byte past it
    code, out, err = run(capsys, "chunk", str(doc), "--format", "jsonl", *args)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith(f"steadlith: error: {doc}: too large: {human_bytes(size + 1)}, over the limit of "), err


def test_a_rule_is_held_to_its_own_figure(capsys, tmp_path, budget):
    """At tttd-v1's limit, lmx2-v1 is admitted exactly when its figure is no larger
    (the compiled kernel: the same; the numpy fallback: larger)."""
    doc = tmp_path / "doc.md"
    doc.write_text(TEXT, encoding="utf-8")
    code, out, err = run(capsys, "chunk", str(doc), "--format", "jsonl", *LMX2)
    if memory_per_input_byte("chunk", ["lmx2-v1"]) <= memory_per_input_byte("chunk", ["tttd-v1"]):
        assert code == 0 and out, err
    else:
        assert code == 2 and out == "" and "too large" in err


def test_chunk_of_a_revision_is_refused_before_the_blob_is_read(capsys, tmp_path, monkeypatch):
    History(tmp_path).commit({"doc.md": TEXT}, "first")
    monkeypatch.chdir(tmp_path)
    size = len(TEXT.encode())
    figure = memory_per_input_byte("chunk", ["lmx2-v1"])
    monkeypatch.setattr(loader, "MEMORY_BUDGET", size * figure)
    assert run(capsys, "chunk", "doc.md@HEAD", "--format", "jsonl", *LMX2)[0] == 0
    monkeypatch.setattr(loader, "MEMORY_BUDGET", size * figure - 1)  # one byte short
    code, out, err = run(capsys, "chunk", "doc.md@HEAD", "--format", "jsonl", *LMX2)
    assert code == 2 and out == "", err
    assert err.startswith(f"steadlith: error: doc.md@HEAD: too large: {human_bytes(size)}, over the limit of "), err


def pair_at_budget(tmp_path, monkeypatch, command: str):
    """A pair of files and their size together, with the budget at which `command` under
    tttd-v1 admits exactly that much."""
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.write_text(TEXT, encoding="utf-8")
    b.write_text(TEXT.replace("longer", "shorter", 1), encoding="utf-8")
    both = a.stat().st_size + b.stat().st_size
    monkeypatch.setattr(loader, "MEMORY_BUDGET", both * memory_per_input_byte(command, ["tttd-v1"]))
    return a, b, both


def test_compare_counts_both_documents_against_its_own_figure(capsys, tmp_path, monkeypatch):
    # lmx2-v1's figure above tttd-v1's (the measured ones may be equal): a pair that fits
    # tttd-v1's is refused under a rule that needs more
    figures = loader.COMMAND_MEMORY[kernel.KERNEL]["compare"]
    monkeypatch.setitem(figures, "lmx2-v1", figures["tttd-v1"] + 3)
    a, b, both = pair_at_budget(tmp_path, monkeypatch, "compare")
    code, out, err = run(capsys, "compare", str(a), str(b))
    assert code == 0 and out, err
    for extra in (LMX2, ["--rules", "tttd-v1,lmx2-v1"]):
        code, out, err = run(capsys, "compare", str(a), str(b), *extra)
        assert code == 2 and out == "" and len(err.splitlines()) == 1, err
        assert err.startswith(f"steadlith: error: {a} and {b}: too large together: ") and "two documents" in err


def test_lab_admits_what_fits_its_chunkers_and_names_the_file_and_its_size(capsys, tmp_path, monkeypatch):
    doc = tmp_path / "doc.md"
    doc.write_text(TEXT, encoding="utf-8")
    size = doc.stat().st_size
    alone = memory_per_input_byte("lab", ["tttd-v1"])
    monkeypatch.setattr(loader, "MEMORY_BUDGET", size * alone)
    code, out, err = run(capsys, "lab", str(doc), "--edits", "2", "--rules", "tttd-v1", "--format", "json")
    assert code == 0 and out, err  # exactly at tttd-v1's limit
    code, out, err = run(capsys, "lab", str(doc), "--edits", "2", "--format", "json")  # the default set costs more
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    limit = size * alone // memory_per_input_byte("lab", LAB_SET.split(","))
    assert err == (f"steadlith: error: {doc}: too large: {human_bytes(size)}, over the limit of {human_bytes(limit)} "
                   f"(chunking it would need over {human_bytes(size * alone)} of memory)\n")


def test_lab_of_a_revision_is_refused_with_the_blob_size(capsys, tmp_path, monkeypatch):
    History(tmp_path).commit({"doc.md": TEXT}, "first")
    monkeypatch.chdir(tmp_path)
    size = len(TEXT.encode())
    monkeypatch.setattr(loader, "MEMORY_BUDGET", size * memory_per_input_byte("lab", ["tttd-v1"]) - 1)
    code, out, err = run(capsys, "lab", "doc.md@HEAD", "--edits", "2", "--rules", "tttd-v1")
    assert code == 2 and out == "", err
    assert err.startswith(f"steadlith: error: doc.md@HEAD: too large: {human_bytes(size)}, over the limit of "), err


def test_explain_counts_both_documents_against_its_own_figure(capsys, tmp_path, monkeypatch):
    a, b, both = pair_at_budget(tmp_path, monkeypatch, "explain")
    code, out, err = run(capsys, "explain", str(a), str(b))
    assert code == 0 and out, err
    code, out, err = run(capsys, "explain", str(a), str(b), *LMX2)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith(f"steadlith: error: {a} and {b}: too large together: {human_bytes(both)}, over the limit "
                          f"of ") and "for two documents explained" in err



def test_an_unknown_memory_form_is_one_line(capsys):
    code, out, err = run(capsys, "bench", "--memory-only", "--memory-forms", "lab,nope")
    assert code == 2 and out == "" and err == ("steadlith: error: --memory-forms: unknown form nope; known: str, str-ascii, "
                                               "bytes, json, jsonl, compare, explain, lab, audit, sweep\n")


def test_the_audit_holds_each_version_to_its_own_figure_not_the_costliest(capsys, tmp_path, monkeypatch):
    """A version over the generic per-blob limit (MAX_DOCUMENT_BYTES, the costliest
    command's) but within the audit's own under tttd-v1 is replayed; under both rules,
    whose figure is larger, the same version is too large."""
    from steadlith_core.history import repository

    edited = TEXT.replace("longer", "shorter", 1)
    History(tmp_path).commit({"doc.md": TEXT}, "first")
    History(tmp_path).commit({"doc.md": edited}, "second")
    size = len(edited.encode())  # the larger version
    monkeypatch.setattr(loader, "MEMORY_BUDGET", size * memory_per_input_byte("audit", ["tttd-v1"]))
    monkeypatch.setattr(repository, "MAX_DOCUMENT_BYTES", size - 1)  # what a command-less reader allows
    code, out, err = run(capsys, "audit", str(tmp_path), "--rules", "tttd-v1", "--format", "json")
    assert code == 0, err
    assert "too large" not in out and '"doc.md"' in out
    code, out, err = run(capsys, "audit", str(tmp_path), "--rules", "tttd-v1,lmx2-v1", "--format", "json")
    assert "too large" in out + err
