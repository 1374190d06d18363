"""The self-contained HTML report of a comparison: evidence for reviewers who never run
the inspector.

One HTML5 file, readable offline forever: an inline <style> and nothing else. No
script (not one), no external font, image or style sheet, and a Content-Security-Policy
that forbids them anyway, so the report stays inert even if a document it quotes
contains HTML. The page is Jinja2 templates (templates/comparison.html.j2, one template
per section in templates/comparison/) rendered with autoescape (pages.py): every piece of
document text, file name and title is escaped; a document holding `<script>` shows as
text.

The kind and status colours, shapes and labels come from `style.py`, Qt-free, which the
inspector's palette imports too, so both show one visual language: Okabe–Ito kind
colours, each kind with its own marker shape, and a loud "shifted".

This module computes what each section shows; the templates hold the markup. The
report is linear in the size of the documents, and deterministic: the same comparison
gives the same bytes (no timestamp).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Sequence

from .._version import __version__
from ..chunking.chunks import Chunk, Chunking
from ..chunking.identity import CHUNKER_FAMILY, IDENTITY_SCHEMA_VERSION
from ..chunking.lmx2 import CHUNKER_FAMILY as LMX2_FAMILY
from ..chunking.lmx2_params import KEY_ID, LMX2_RULE
from ..chunking.params import FINGERPRINT_ID
from ..comparison.churn import Comparison
from ..comparison.measurement import NOTHING_TO_CHECK, VIOLATED
from ..comparison.diff import EQUAL, DELETE, INSERT
from ..comparison.causes import explain_comparison
from ..comparison.chunker_churn import ChunkerChurn
from ..errors import readable, visible
from ..lab import LabResult
from .lab import lab_section
from .pages import plural, render
from .style import (
    KIND_COLOURS,
    KIND_LABELS,
    KIND_SHAPES,
    STATUS_COLOURS,
    STATUS_HELP,
    kind_help,
    marker_kind,
    marker_kinds,
)
from ..vocabulary import EDITED, NEW, REMOVED, REUSED, SHIFTED
from ..vocabulary import STATUSES

if TYPE_CHECKING:
    from ..retrieval.beside import Beside

# -- report-only styling (the shared visual language is in style.py) -----------------

# How strongly each status tints a chunk's background (blended into the page colour), as
# in the inspector: shifted loudest, reused quiet (the inspector gives reused chunks its
# neutral alternating tints; the report, whose chunks are separate boxes, a light grey).
STATUS_TINT_ALPHA = {REUSED: 0.14, SHIFTED: 0.34, EDITED: 0.30, NEW: 0.26, REMOVED: 0.26}

_SURFACES = {  # page colours of the report (the GUI's base/text/muted/mid)
    "light": {"bg": "#FFFFFF", "fg": "#1D1F22", "muted": "#5F6670", "rule": "#B8BCC4", "panel": "#F4F5F7",
              "link": "#1F5FBF", "bad": "#B3261E", "bad-bg": "#FBE3DC", "ok": "#00805D", "ok-bg": "#E0F3EC"},
    "dark": {"bg": "#1B1D21", "fg": "#E2E4E8", "muted": "#A0A6B0", "rule": "#555A63", "panel": "#23262B",
             "link": "#6CB4EE", "bad": "#FF8A75", "bad-bg": "#4A211A", "ok": "#2FC896", "ok-bg": "#173A2F"},
}

HASH_PREFIX_CHARS = 12
# Where each rule's locality is defined, cited by the report's locality check.
LOCALITY_DOCS = {"tttd-v1": "docs/contract/tttd-v1.md#locality", LMX2_RULE: "docs/contract/lmx2-v1.md#locality"}
# A run of reused pairs this long or longer folds into one line; the pair next to each
# change stays open, as context (what a code review shows around a hunk).
COLLAPSE_MIN_PAIRS = 2
CONTEXT_PAIRS = 1
# How many words of each side an entry of the change list quotes.
QUOTE_WORDS = 12


def blend(colour: str, background: str, alpha: float) -> str:
    """`colour` laid over `background` at opacity `alpha`, as an opaque #RRGGBB."""
    fg = [int(colour[k:k + 2], 16) for k in (1, 3, 5)]
    bg = [int(background[k:k + 2], 16) for k in (1, 3, 5)]
    return "#" + "".join(f"{round(b + (f - b) * alpha):02X}" for f, b in zip(fg, bg))


def status_tint(status: str, theme: str = "light") -> str:
    """The background of a chunk with `status` in `theme` ("light" or "dark")."""
    return blend(STATUS_COLOURS[theme][status], _SURFACES[theme]["bg"], STATUS_TINT_ALPHA[status])


def locality_verdict(c: Comparison) -> str:
    """The one-sentence locality verdict (docs/contract/tttd-v1.md#locality), worded alike in the CLI and in the report."""
    if c.verdict == NOTHING_TO_CHECK:
        return (f"locality: nothing to check (no shared range of 2 x margin = {2 * c.margin} tokens; "
                "the edit left no stretch long enough to test)")
    if c.locality_held:
        return "locality held: every chunk inside a long shared range was reused"
    why = (f"docs/contract/lmx2-v1.md#locality promises none: a defect of {LMX2_RULE}, please report it"
           if c.a.boundary_rule == LMX2_RULE
           else f"docs/contract/tttd-v1.md#locality: {c.a.boundary_rule} is not strictly local")
    return f"LOCALITY NOT HELD: {plural(len(c.violations), 'chunk')} inside long shared ranges not reused ({why})"


# -- rendering -----------------------------------------------------------------------


def render_report(comparison: Comparison, name_a: str, name_b: str, *, title: str | None = None,
                  generated_by: str | None = None, rules: Mapping[str, Comparison] | None = None,
                  chunkers: Sequence[ChunkerChurn] = (), lab: LabResult | None = None,
                  lab_retrieval: Beside | None = None) -> str:
    """The whole report as one HTML5 string (write it with export.write_text_atomic).

    `name_a`/`name_b` label the two documents (paths or pane names); `title` defaults to
    "Steadlith report: A → B"; `generated_by` (default "steadlith_core <version>") is
    shown in the header and as <meta name="generator">. `rules` (as from
    analysis.compare_rules), when given, adds a table of every rule side by side with
    the fixed-size baseline; the rest of the report shows `comparison` (one of them).
    `chunkers` (external rows of chunker_churn.compare_chunkers) join that table as more
    columns, measured by hash; with them the table appears even for one rule.
    `lab` (a run_lab result on A) adds the locality lab's section after the churn, and
    `lab_retrieval` (retrieval.beside.evaluate_named over the lab's chunkers) its
    chunkers' retrieval scores in that section.
    """
    if generated_by is None:
        generated_by = f"steadlith_core {__version__}"
    # a file name's undecodable bytes shown as U+FFFD: the page is UTF-8
    name_a, name_b = readable(name_a), readable(name_b)
    if title is None:  # a <title> holds no elements: Unicode isolates do what <bdi> does below
        title = f"Steadlith report: \u2068{visible(name_a)}\u2069 → \u2068{visible(name_b)}\u2069"
    c = comparison
    chunkers = [r for r in chunkers if r.family == "external"]
    if chunkers and not rules:
        rules = {c.a.boundary_rule: c}
    marks = _EditMarks.of(c)
    cls, mark = {VIOLATED: ("broken", "✗"), NOTHING_TO_CHECK: ("unchecked", "–")}.get(c.verdict, ("held", "✓"))
    columns = _rule_columns(rules, c.a.boundary_rule) if rules else []
    return render("comparison.html.j2", **_page_context(readable(title), generated_by), c=c, name_a=name_a, name_b=name_b,
                  verdict=locality_verdict(c), verdict_class=cls, verdict_mark=mark,
                  rules=rules, columns=columns, summaries=[x for _, _, x in columns], chunkers=chunkers,
                  lab=lab, lab_html=lab_section(lab, retrieval=lab_retrieval) if lab is not None else None,
                  edits=_edits(c), quote_words=QUOTE_WORDS, jump_lists=_jump_lists(c),
                  identity=_identity_rows(c.a), canonical=_canonical_rows(c.a),
                  explanations=explain_comparison(c), rule=c.a.boundary_rule,
                  locality_doc=LOCALITY_DOCS.get(c.a.boundary_rule, LOCALITY_DOCS["tttd-v1"]),
                  legend_kinds=[(k, KIND_LABELS[k], KIND_SHAPES[k], kind_help(c.a.boundary_rule, k))
                                for k in marker_kinds(c.a.boundary_rule)],
                  legend_statuses=[(st, STATUS_HELP[st]) for st in STATUSES],
                  heads=(("A", name_a, c.a), ("B", name_b, c.b)), rows=_document_view(c, marks),
                  hash_prefix=HASH_PREFIX_CHARS)


def render_lab_report(lab: LabResult, name: str, *, generated_by: str | None = None,
                      retrieval: Beside | None = None) -> str:
    """A report of the locality lab alone (`steadlith lab --html`): the same page, style
    and guarantees as render_report, with only the lab section; `retrieval` (from
    retrieval.beside.evaluate_named over the lab's chunkers) adds their retrieval scores."""
    if generated_by is None:
        generated_by = f"steadlith_core {__version__}"
    name = readable(name)  # as in render_report
    title = f"Steadlith locality lab: \u2068{visible(name)}\u2069"
    return render("lab_report.html.j2", **_page_context(title, generated_by), name=name,
                  lab_html=lab_section(lab, retrieval=retrieval))


def _page_context(title: str, generated_by: str) -> dict:
    """What the comparison report's page needs whatever it shows: its title, generator,
    the theme colours of its style, and the helpers its templates call."""
    return {"title": title, "generated_by": generated_by, "theme_light": _theme_vars("light"),
            "theme_dark": _theme_vars("dark"), "pct": _pct,
            "VIOLATED": VIOLATED, "NOTHING_TO_CHECK": NOTHING_TO_CHECK}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _rule_columns(rules: Mapping[str, Comparison], shown: str) -> list[tuple[str, str, object]]:
    """The columns of the rules table: every rule, then each distinct fixed-size baseline."""
    columns: list[tuple[str, str, object]] = [
        (rule, "documents below" if rule == shown else f"margin {c.margin}", c.summary) for rule, c in rules.items()]
    seen: set[str] = set()
    for c in rules.values():
        if c.baseline is not None and c.baseline.params_hash not in seen:
            seen.add(c.baseline.params_hash)
            columns.append((f"{c.baseline.strategy} baseline", f"windows of {c.baseline.max_tokens} tokens",
                            c.baseline.summary))
    return columns


def _identity_rows(a: Chunking) -> list[tuple[str, object]]:
    lmx2 = a.boundary_rule == LMX2_RULE
    return [("normalizer", a.normalizer_version), ("boundary rule", a.boundary_rule),
            ("key", KEY_ID) if lmx2 else ("fingerprint", FINGERPRINT_ID),
            ("chunk hash", f"identity schema {IDENTITY_SCHEMA_VERSION}, family "
                           f"{LMX2_FAMILY if lmx2 else CHUNKER_FAMILY}"),
            ("locality margin", f"{a.params.margin} tokens = {a.params.margin_formula}")]


_HEXED = {"polynomial", "primary_mask", "primary_remainder", "backup_mask", "backup_remainder"}


def _canonical_rows(a: Chunking) -> list[tuple[str, object, str | None]]:
    """(key, value, the value in hex for the masks and the polynomial, else None)."""
    return [(key, value, f"{int(value):X}" if key in _HEXED else None) for key, value in a.params.canonical_fields()]


def _edits(c: Comparison) -> list[dict]:
    """Every edit of the word diff: its chunks on each side, its tag, and the words it
    deleted (old) and inserted (new), quoted, or None for a side it leaves alone."""
    a, b = c.a, c.b
    out = []
    for op in c.ops:
        if op.tag == EQUAL:
            continue
        out.append({"a_chunk": a.chunk_at_word(min(op.a_start, a.word_count - 1)) if a.chunks else None,
                    "b_chunk": b.chunk_at_word(min(op.b_start, b.word_count - 1)) if b.chunks else None,
                    "tag": op.tag,
                    "old": _quote(a, op.a_start, op.a_end) if op.a_end > op.a_start else None,
                    "new": _quote(b, op.b_start, op.b_end) if op.b_end > op.b_start else None})
    return out


def _jump_lists(c: Comparison) -> list[tuple[str, str, str, list[int]]]:
    """The changes section's lists of chunks by status, those that have any."""
    lists = [("edited", "b", EDITED), ("new", "b", NEW), ("shifted", "b", SHIFTED),
             ("edited", "a", EDITED), ("removed", "a", REMOVED), ("shifted", "a", SHIFTED)]
    out = []
    for label, side, status in lists:
        statuses = c.status_a if side == "a" else c.status_b
        found = [k for k, st in enumerate(statuses) if st == status]
        if found:
            out.append((label, side, status, found))
    return out


def _document_view(c: Comparison, marks: "_EditMarks") -> list[dict]:
    """The rows of the documents section (see _document_rows), each chunk as the
    template draws it."""
    a, b = c.a, c.b
    region_of_b = {}
    for n, r in enumerate(c.phase_shift_regions, 1):
        for j in range(*r.b_chunks):
            region_of_b[j] = n

    def view(side: str, indices) -> list[dict]:
        ch = a if side == "a" else b
        status = c.status_a if side == "a" else c.status_b
        partner = c.partner_a if side == "a" else c.partner_b
        return [_chunk_view(side, ch, ch.chunks[i], status[i], partner[i],
                            region_of_b.get(i) if side == "b" else None, marks) for i in indices]

    def pair(i: int, j: int) -> dict:
        return {"kind": "pair", "a": view("a", (i,)), "b": view("b", (j,))}

    rows = []
    for row in _document_rows(c):
        if row[0] == "gap":
            rows.append({"kind": "gap", "a": view("a", row[1]), "b": view("b", row[2])})
        elif row[0] == "pair":
            rows.append(pair(row[1], row[2]))
        else:
            pairs = row[1]
            rows.append({"kind": "fold", "pairs": [pair(i, j) for i, j in pairs], "first": pairs[0],
                         "last": pairs[-1], "tokens": sum(b.chunks[j].tokens for _, j in pairs)})
    return rows


def _document_rows(c: Comparison) -> list[tuple]:
    """The rows of the documents section in order: ("gap", A range, B range),
    ("pair", i, j) shown open, and ("fold", [(i, j), ...]) for a folded run."""
    a, b = c.a, c.b
    items: list[tuple] = []
    prev_a = prev_b = -1
    for i, j in (*c.alignment, (len(a.chunks), len(b.chunks))):
        if i - prev_a > 1 or j - prev_b > 1:
            items.append(("gap", range(prev_a + 1, i), range(prev_b + 1, j)))
        if i < len(a.chunks) and j < len(b.chunks):
            items.append(("pair", i, j))
        prev_a, prev_b = i, j
    rows: list[tuple] = []
    k = 0
    while k < len(items):
        if items[k][0] != "pair":
            rows.append(items[k])
            k += 1
            continue
        end = k
        while end < len(items) and items[end][0] == "pair":
            end += 1
        run = items[k:end]
        head = CONTEXT_PAIRS if k > 0 else 0  # context after the change above
        tail = CONTEXT_PAIRS if end < len(items) else 0  # and before the change below
        if len(run) - head - tail >= COLLAPSE_MIN_PAIRS:
            rows.extend(run[:head])
            rows.append(("fold", [(i, j) for _, i, j in run[head:len(run) - tail]]))
            rows.extend(run[len(run) - tail:])
        else:
            rows.extend(run)
        k = end
    return rows


def _chunk_view(side: str, ch: Chunking, k: Chunk, status: str, partner: int | None, region: int | None,
                marks: "_EditMarks") -> dict:
    """One chunk as documents.html.j2 draws it: its header's facts and its text as
    segments (changed words marked)."""
    # reused and shifted chunks hold no changed word by definition: no need to look
    text = ([("text", ch.text[k.start:k.end])] if status in (REUSED, SHIFTED)
            else marks.marked_segments(side, ch, k))
    return {"side": side, "other": "b" if side == "a" else "a", "index": k.index,
            "marker": marker_kind(k.kind, k.snapped), "status": status, "kind": k.kind, "snapped": k.snapped,
            "boundary": k.boundary, "tokens": k.tokens, "hash": k.hash, "partner": partner, "region": region,
            "text": text}


# -- changed words ---------------------------------------------------------------------


@dataclass(frozen=True)
class _EditMarks:
    """Which words each side's edits changed (A: deleted or replaced, B: inserted or
    replacing), and the points where the other side has words this one lacks."""

    changed: dict[str, list[bool]]
    points: dict[str, dict[int, int]]  # word index -> how many words the other side has there

    @classmethod
    def of(cls, c: Comparison) -> "_EditMarks":
        changed = {"a": [False] * c.a.word_count, "b": [False] * c.b.word_count}
        points: dict[str, dict[int, int]] = {"a": {}, "b": {}}
        for op in c.ops:
            if op.tag == EQUAL:
                continue
            changed["a"][op.a_start:op.a_end] = [True] * (op.a_end - op.a_start)
            changed["b"][op.b_start:op.b_end] = [True] * (op.b_end - op.b_start)
            if op.tag == DELETE:
                points["b"][op.b_start] = op.a_end - op.a_start
            elif op.tag == INSERT:
                points["a"][op.a_start] = op.b_end - op.b_start
        return cls(changed, points)

    def marked_segments(self, side: str, ch: Chunking, k: Chunk) -> list[tuple[str, str]]:
        """The chunk's source text as (kind, text) segments: "text", its changed words as
        "del" (A) or "ins" (B), elements, so the mark survives without colour (struck
        through, underlined) and in a screen reader, and "gap" (its text the mark's
        title) where the other side has words this one lacks. The texts joined are the
        source, unchanged."""
        tag = "del" if side == "a" else "ins"
        what = "inserted in B" if side == "a" else "deleted from A"
        changed, points = self.changed[side], self.points[side]
        starts, ends, text = ch.words.starts, ch.words.ends, ch.text
        out: list[tuple[str, str]] = []
        pos = k.start
        i = k.start_word
        last = k.end_word + (1 if k.end_word == ch.word_count else 0)  # a point after the document's last word
        while i < last:
            if i in points:
                at = int(starts[i]) if i < ch.word_count else k.end
                out.append(("text", text[pos:at]))
                out.append(("gap", f"{plural(points[i], 'word')} {what} here"))
                pos = at
            if i < k.end_word and changed[i]:
                j = i + 1
                while j < k.end_word and changed[j] and j not in points:
                    j += 1
                out.append(("text", text[pos:int(starts[i])]))
                out.append((tag, text[int(starts[i]):int(ends[j - 1])]))
                pos = int(ends[j - 1])
                i = j
            else:
                i += 1
        out.append(("text", text[pos:k.end]))
        return out


def _quote(ch: Chunking, start: int, end: int) -> str:
    words = ch.words.texts[start:min(end, start + QUOTE_WORDS)]
    return " ".join(words) + (" …" if end - start > QUOTE_WORDS else "")


# -- style ---------------------------------------------------------------------------


def _theme_vars(theme: str) -> str:
    s = _SURFACES[theme]
    lines = [f"--{k}: {v};" for k, v in s.items()]
    lines += [f"--k-{k}: {v};" for k, v in KIND_COLOURS[theme].items()]
    lines += [f"--s-{k}: {v};" for k, v in STATUS_COLOURS[theme].items()]
    lines += [f"--t-{k}: {status_tint(k, theme)};" for k in STATUSES]
    # changed words sit on their chunk's tint: strong enough to read as a mark on it
    lines += [f"--ins-bg: {blend(STATUS_COLOURS[theme][NEW], _SURFACES[theme]['bg'], 0.45)};",
              f"--del-bg: {blend(STATUS_COLOURS[theme][REMOVED], _SURFACES[theme]['bg'], 0.45)};"]
    return " ".join(lines)
