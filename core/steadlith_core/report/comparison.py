"""The self-contained HTML report of a comparison: evidence for reviewers who never run
the inspector.

One HTML5 file, readable offline forever: an inline <style> and nothing else. No
script (not one), no external font, image or style sheet, and a Content-Security-Policy
that forbids them anyway, so the report stays inert even if a document it quotes
contains HTML. Every piece of document text, file name and title goes through
`html.escape(quote=True)`; a document holding `<script>` shows as text.

The kind and status colours, shapes and labels come from `style.py`, Qt-free, which the
inspector's palette imports too, so both show one visual language: Okabe–Ito kind
colours, each kind with its own marker shape, and a loud "shifted".

The report is built from lists joined once (linear in the size of the documents), and
is deterministic: the same comparison gives the same bytes (no timestamp).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Iterable, Sequence

from typing import Mapping

from .._version import __version__
from ..chunking.chunks import Chunk, Chunking
from ..chunking.identity import CHUNKER_FAMILY, IDENTITY_SCHEMA_VERSION
from ..chunking.lmx2 import CHUNKER_FAMILY as LMX2_FAMILY
from ..chunking.lmx2_params import KEY_ID, LMX2_RULE
from ..chunking.params import FINGERPRINT_ID
from ..comparison.churn import NOTHING_TO_CHECK, VIOLATED, Comparison
from ..comparison.diff import EQUAL, DELETE, INSERT
from ..comparison.explain import explain_comparison
from ..comparison.external import ChunkerChurn
from ..errors import visible
from ..lab import LabResult
from .lab import LAB_CSS, lab_section
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
    """The one-sentence SPEC §9 verdict, worded alike in the CLI and in the report."""
    if c.verdict == NOTHING_TO_CHECK:
        return (f"locality: nothing to check (no shared range of 2 x margin = {2 * c.margin} tokens; "
                "the edit left no stretch long enough to test)")
    if c.locality_held:
        return "locality held: every chunk inside a long shared range was reused"
    why = (f"SPEC-lmx2 §7 promises none: a defect of {LMX2_RULE}, please report it" if c.a.boundary_rule == LMX2_RULE
           else f"SPEC §9: {c.a.boundary_rule} is not strictly local")
    return f"LOCALITY NOT HELD: {_n(len(c.violations), 'chunk')} inside long shared ranges not reused ({why})"


# -- rendering -----------------------------------------------------------------------


def render_report(comparison: Comparison, name_a: str, name_b: str, *, title: str | None = None,
                  generated_by: str | None = None, rules: Mapping[str, Comparison] | None = None,
                  chunkers: Sequence[ChunkerChurn] = (), lab: LabResult | None = None) -> str:
    """The whole report as one HTML5 string (write it with export.write_text_atomic).

    `name_a`/`name_b` label the two documents (paths or pane names); `title` defaults to
    "Steadlith report: A → B"; `generated_by` (default "steadlith_core <version>") is
    shown in the header and as <meta name="generator">. `rules` (as from
    analysis.compare_rules), when given, adds a table of every rule side by side with
    the fixed-size baseline; the rest of the report shows `comparison` (one of them).
    `chunkers` (external rows of external.compare_chunkers) join that table as more
    columns, measured by hash; with them the table appears even for one rule.
    `lab` (a run_lab result on A) adds the locality lab's section after the churn.
    """
    if generated_by is None:
        generated_by = f"steadlith_core {__version__}"
    if title is None:  # a <title> holds no elements: Unicode isolates do what <bdi> does below
        title = f"Steadlith report: \u2068{visible(name_a)}\u2069 → \u2068{visible(name_b)}\u2069"
    c = comparison
    chunkers = [r for r in chunkers if r.family == "external"]
    if chunkers and not rules:
        rules = {c.a.boundary_rule: c}
    out: list[str] = []
    w = out.append
    w('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n')
    w("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n")
    w('<meta name="viewport" content="width=device-width, initial-scale=1">\n')
    w('<meta name="color-scheme" content="light dark">\n')
    w(f'<meta name="generator" content="{_e(generated_by)}">\n')
    w(f"<title>{_e(title)}</title>\n<style>\n{_css()}</style>\n</head>\n<body>\n")
    w(f'<header>\n<h1>{_e(title)}</h1>\n<p class="docs"><span class="side">A</span> {_name(name_a)}'
      f' &nbsp;→&nbsp; <span class="side">B</span> {_name(name_b)}</p>\n'
      f'<p class="muted">Generated by {_e(generated_by)}. Self-contained: no scripts, no external files.</p>\n'
      "</header>\n")
    _verdict_banner(w, c)
    w('<nav aria-label="Sections"><a href="#changes">Changes</a> · ' +
      ('<a href="#rules">Rules side by side</a> · ' if rules else "") +
      ('<a href="#lab">Locality lab</a> · ' if lab is not None else "") +
      '<a href="#identity">Identity</a> · <a href="#churn">Churn</a> · '
      '<a href="#locality">Locality</a> · <a href="#regions">Phase-shift regions</a> · '
      '<a href="#why">Why the chunks moved</a> · '
      '<a href="#legend">Legend</a> · <a href="#documents">Documents</a></nav>\n<main>\n')
    marks = _EditMarks.of(c)
    _changes(w, c, marks)
    if rules:
        _rules_table(w, rules, c.a.boundary_rule, chunkers)
    w('<div class="cards">\n')
    _identity(w, c.a)
    _churn(w, c)
    w("</div>\n")
    if lab is not None:
        w(lab_section(lab))
    _locality(w, c)
    _regions(w, c)
    _why(w, c)
    _legend(w, c.a.boundary_rule)
    _documents(w, c, name_a, name_b, marks)
    w("</main>\n</body>\n</html>\n")
    return "".join(out)


def render_lab_report(lab: LabResult, name: str, *, generated_by: str | None = None) -> str:
    """A report of the locality lab alone (`steadlith lab --html`): the same page, style
    and guarantees as render_report, with only the lab section."""
    if generated_by is None:
        generated_by = f"steadlith_core {__version__}"
    title = f"Steadlith locality lab: \u2068{visible(name)}\u2069"
    return ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            '<meta name="color-scheme" content="light dark">\n'
            f'<meta name="generator" content="{_e(generated_by)}">\n'
            f"<title>{_e(title)}</title>\n<style>\n{_css()}</style>\n</head>\n<body>\n"
            f'<header>\n<h1>{_e(title)}</h1>\n<p class="docs">{_name(name)}</p>\n'
            f'<p class="muted">Generated by {_e(generated_by)}. Self-contained: no scripts, no external files.</p>\n'
            f"</header>\n<main>\n{lab_section(lab)}</main>\n</body>\n</html>\n")


def _e(x: object) -> str:
    return html.escape(str(x), quote=True)


def _name(name: str) -> str:
    """A document's name as data: escaped, controls shown as escapes, and isolated so a
    right-to-left name or a bidi override cannot reorder the text beside it."""
    return f"<bdi>{_e(visible(name))}</bdi>"


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _rng(r: Sequence[int]) -> str:
    return f"[{r[0]}, {r[1]})"


def _link(side: str, index: int | None) -> str:
    if index is None:
        return "–"
    return f'<a href="#{side}-chunk-{index}">{side.upper()} #{index}</a>'


def _chunk_span(side: str, r: Sequence[int]) -> str:
    """An inclusive run of chunks as links: 'B #3 … B #13 (11 chunks)'."""
    first, last = r[0], r[1] - 1
    if last < first:
        return "–"
    if last == first:
        return _link(side, first)
    return f"{_link(side, first)} … {_link(side, last)} <span class=\"muted\">({last - first + 1} chunks)</span>"


def _verdict_banner(w, c: Comparison) -> None:
    s = c.summary
    cls, mark = {VIOLATED: ("broken", "✗"), NOTHING_TO_CHECK: ("unchecked", "–")}.get(c.verdict, ("held", "✓"))
    w(f'<p class="verdict {cls}" id="verdict"><span class="mark" aria-hidden="true">{mark}</span> '
      f"{_e(locality_verdict(c))}</p>\n")
    w(f'<p class="keynums">B reuses <b>{s.reused_chunks} of {s.chunks_b}</b> chunks ({_pct(s.reused_chunk_ratio)}) '
      f"and <b>{_pct(s.reused_token_ratio)}</b> of its tokens; <b>{s.tokens_to_embed} tokens</b> in "
      f"{_n(s.chunks_to_embed, 'chunk')} to re-embed, of which <b class=\"shifted-text\">"
      f"{_n(s.shifted_chunks_b, 'shifted chunk')}</b> ({s.shifted_tokens_b} tokens) hold no changed word.</p>\n")


def _rules_table(w, rules: Mapping[str, Comparison], shown: str, chunkers: Sequence[ChunkerChurn] = ()) -> None:
    """Every rule on the same pair, side by side, the fixed-size baseline(s), then the
    external chunkers (by hash: no alignment, so no shifted chunks or locality)."""
    columns: list[tuple[str, str, object]] = [
        (rule, "documents below" if rule == shown else f"margin {c.margin}", c.summary) for rule, c in rules.items()]
    seen: set[str] = set()
    for c in rules.values():
        if c.baseline is not None and c.baseline.params_hash not in seen:
            seen.add(c.baseline.params_hash)
            columns.append((f"{c.baseline.strategy} baseline", f"windows of {c.baseline.max_tokens} tokens",
                            c.baseline.summary))
    externals = (f"<p>Beside them, {_n(len(chunkers), 'external chunker')}, measured by hash: a B chunk is "
                 "reused when its hash (of its exact text) occurs among A's chunks, which is what an embedding "
                 "cache keyed by chunk hash hits. Spans have no word alignment, so nothing is shifted and no "
                 "locality is checked (n/a).</p>\n") if chunkers else ""
    w('<section id="rules">\n<h2>Rules side by side</h2>\n<p>The same two versions under each boundary rule, '
      f"each checked at its own locality margin.</p>\n{externals}<div class=\"scroll\"><table class=\"grid rules\">\n"
      "<thead><tr><th></th>")
    for name, note, _ in columns:
        w(f'<th>{_e(name)}<br><span class="muted">{_e(note)}</span></th>')
    for r in chunkers:
        w(f'<th class="external">{_e(r.chunker)}<br><span class="muted">external, by hash</span></th>')
    w("</tr></thead>\n<tbody>\n")
    na = '<span class="muted">n/a</span>'

    def row(label: str, fn, ext=None) -> None:
        cells = [f"<td>{fn(s)}</td>" for _, _, s in columns]
        cells += [f"<td>{ext(r) if ext is not None else na}</td>" for r in chunkers]
        w(f"<tr><th>{label}</th>" + "".join(cells) + "</tr>\n")

    row("reused chunks", lambda x: f"<b>{x.reused_chunks}</b> of {x.chunks_b} ({_pct(x.reused_chunk_ratio)})",
        lambda r: f"<b>{r.reused_chunks}</b> of {r.chunks_b} "
                  f"({_pct(r.reused_chunks / r.chunks_b if r.chunks_b else 1.0)})")
    def reused_tokens(x) -> str:  # a rule's summary and an external row name these fields alike
        return f"{x.reused_tokens} of {x.tokens_b} ({_pct(x.reused_token_ratio)})"

    row("reused tokens", reused_tokens, reused_tokens)
    row("tokens to embed", lambda x: f"<b>{x.tokens_to_embed}</b>", lambda r: f"<b>{r.tokens_to_embed}</b>")
    row("shifted chunks", lambda x: f'<span class="shifted-text">{x.shifted_chunks_b}</span>')
    row("margin", lambda x: f"{x.margin} tokens<br><span class=\"muted\">{_e(x.margin_formula)}</span>")
    row("locality", lambda x: (f'<span class="over">✗ not held</span>: {_n(x.violations, "violation")}'
                               if x.verdict == VIOLATED else '<span class="muted">– nothing to check</span>'
                               if x.verdict == NOTHING_TO_CHECK else
                               f'<span class="ok-text">✓ held</span> ({_n(x.checked_ranges, "range")})'))
    row("cuts at paragraph ends", lambda x: _pct(x.paragraph_cut_share_b))
    row("cuts at sentence ends", lambda x: _pct(x.sentence_cut_share_b))
    row("mean chunk size", lambda x: f"{x.mean_chunk_tokens_b:.1f} tokens", lambda r: f"{r.mean_chunk_tokens_b:.1f} tokens")
    w("</tbody>\n</table></div>\n</section>\n")


def _identity(w, a: Chunking) -> None:
    p = a.params
    hexed = {"polynomial", "primary_mask", "primary_remainder", "backup_mask", "backup_remainder"}
    lmx2 = a.boundary_rule == LMX2_RULE
    w('<section id="identity" class="card">\n<h2>Identity</h2>\n<table class="kv">\n')
    for key, value in (("normalizer", a.normalizer_version), ("boundary rule", a.boundary_rule),
                       ("key", KEY_ID) if lmx2 else ("fingerprint", FINGERPRINT_ID),
                       ("chunk hash", f"identity schema {IDENTITY_SCHEMA_VERSION}, family "
                                      f"{LMX2_FAMILY if lmx2 else CHUNKER_FAMILY}"),
                       ("locality margin", f"{p.margin} tokens = {p.margin_formula}")):
        w(f"<tr><th>{_e(key)}</th><td>{_e(value)}</td></tr>\n")
    w(f'<tr><th>params hash</th><td><code class="phash">{_e(a.params_hash)}</code></td></tr>\n</table>\n')
    w('<h3>Canonical parameters <span class="muted">(SPEC §7 order)</span></h3>\n<table class="kv params">\n')
    for key, value in p.canonical_fields():
        extra = f' <span class="muted">0x{int(value):X}</span>' if key in hexed else ""
        w(f"<tr><th>{_e(key)}</th><td><code>{_e(value)}</code>{extra}</td></tr>\n")
    w("</table>\n</section>\n")


def _churn(w, c: Comparison) -> None:
    s = c.summary
    base = c.baseline.summary if c.baseline is not None else None

    def row(label: str, fn) -> None:
        other = fn(base) if base is not None else "–"
        w(f"<tr><th>{label}</th><td>{fn(s)}</td><td>{other}</td></tr>\n")

    w('<section id="churn" class="card">\n<h2>Churn summary</h2>\n')
    w(f'<p>{_n(s.edits, "edit")}: {_n(s.changed_words_a, "word")} of A deleted or replaced, '
      f'{_n(s.changed_words_b, "word")} of B inserted or replacing.</p>\n')
    base_head = (f"{_e(c.baseline.strategy)} baseline<br><span class=\"muted\">windows of {c.baseline.max_tokens} "
                 "tokens</span>" if c.baseline is not None else "baseline (not computed)")
    w(f'<div class="scroll"><table class="churn">\n<thead><tr><th></th><th>{_e(s.strategy)}<br><span class="muted">this chunker</span>'
      f"</th><th>{base_head}</th></tr></thead>\n<tbody>\n")
    row("chunks A | B", lambda x: f"{x.chunks_a} | {x.chunks_b}")
    row("tokens A | B", lambda x: f"{x.tokens_a} | {x.tokens_b}")
    row("reused chunks", lambda x: f"<b>{x.reused_chunks}</b> of {x.chunks_b} ({_pct(x.reused_chunk_ratio)})")
    row("reused tokens", lambda x: f"<b>{x.reused_tokens}</b> of {x.tokens_b} ({_pct(x.reused_token_ratio)})")
    row("to re-embed", lambda x: f"<b>{x.tokens_to_embed} tokens</b> in {_n(x.chunks_to_embed, 'chunk')}")
    row("shifted chunks (B)", lambda x: f'<span class="shifted-text">{x.shifted_chunks_b}</span> '
                                        f"({x.shifted_tokens_b} tokens)")
    row("edited | new (B)", lambda x: f"{x.edited_chunks_b} | {x.new_chunks_b}")
    row("shifted | edited | removed (A)",
        lambda x: f"{x.shifted_chunks_a} | {x.edited_chunks_a} | {x.removed_chunks_a}")
    row("hash found elsewhere in A", lambda x: f"{x.unaligned_hash_hits_b} ({x.unaligned_hash_hit_tokens_b} tokens)")
    row("phase-shift regions", lambda x: f"{x.phase_shift_regions}")
    row("longest resync", lambda x: _resync_vs_margin(x.longest_resync_tokens, x.margin))
    row("locality violations", lambda x: f"{x.violations} in {_n(x.checked_ranges, 'checked range')}")
    w("</tbody>\n</table></div>\n</section>\n")


def _resync_vs_margin(tokens: int, margin: int) -> str:
    # Neutral whichever side of the margin: a resync past it is allowed (tttd-v1 promises
    # no bound, SPEC §9), and only the locality check's violations say locality broke.
    side = f"past the margin of {margin} ({tokens / margin:.1f}×)" if tokens > margin else f"within the margin of {margin}"
    return f'{tokens} tokens after the edit <span class="muted">({side})</span>'



def _locality(w, c: Comparison) -> None:
    w('<section id="locality">\n<h2>Locality check <span class="muted">(SPEC §9)</span></h2>\n')
    w(f"<p>Margin {c.margin} tokens = {_e(c.a.params.margin_formula)}. Every shared range of at least "
      f"{2 * c.margin} tokens is checked: each B chunk lying wholly inside it, a margin away from both ends, "
      f"should be reused. {_n(c.checked_ranges, 'shared range')} checked, "
      f"{_n(len(c.violations), 'violation')}.</p>\n")
    if not c.violations:
        w('<p class="muted">No violations.</p>\n</section>\n')
        return
    w('<div class="scroll"><table class="grid violations">\n<thead><tr><th>#</th><th>B chunk</th><th>status</th><th>B words</th>'
      "<th>B tokens</th><th>shared B words</th><th>interior B tokens</th><th>A chunks, same words</th></tr></thead>\n"
      "<tbody>\n")
    for n, v in enumerate(c.violations, 1):
        w(f"<tr><td>{n}</td><td>{_link('b', v.b_chunk)}</td><td class=\"st-{_e(v.status)}\">{_e(v.status)}</td>"
          f"<td>{_rng(v.b_words)}</td><td>{_rng(v.b_tokens)}</td><td>{_rng(v.equal_b_words)}</td>"
          f"<td>{_rng(v.interior_b_tokens)}</td><td>{_chunk_span('a', v.a_chunks)}</td></tr>\n")
    w("</tbody>\n</table></div>\n</section>\n")


def _regions(w, c: Comparison) -> None:
    w('<section id="regions">\n<h2>Phase-shift regions</h2>\n')
    if not c.phase_shift_regions:
        w('<p class="muted">None: every B chunk made only of unchanged words kept its cut and its hash.</p>\n'
          "</section>\n")
        return
    w("<p>Runs of consecutive <span class=\"shifted-text\">shifted</span> B chunks: the same words as in A, cut "
      "elsewhere, so their hashes (and embeddings) are new. Word and token ranges are half-open.</p>\n")
    w('<div class="scroll"><table class="grid regions">\n<thead><tr><th>#</th><th>B chunks</th><th>B words</th><th>B tokens</th>'
      "<th>A chunks</th><th>their A words</th><th>their A tokens</th><th>the edit</th><th>resync at</th>"
      "<th>resync distance</th></tr></thead>\n<tbody>\n")
    for n, r in enumerate(c.phase_shift_regions, 1):
        e = r.first_edit if r.starts_before_edit else r.after_edit
        edit = ("document start" if e is None else
                f"{_e(e.tag)} at B words {_rng((e.b_start, e.b_end))} / A words {_rng((e.a_start, e.a_end))}")
        if r.starts_before_edit:
            edit = f"precedes {edit} (starts {r.starts_before_edit_tokens} tokens before it)"
        elif e is not None:
            edit = f"follows {edit}"
        resync = (f"{_link('b', r.resync_b)} = {_link('a', r.resync_a)}" if r.resynced
                  else "never (to the end of B)")
        w(f'<tr id="region-{n}"><td>{n}</td><td>{_chunk_span("b", r.b_chunks)}</td><td>{_rng(r.b_words)}</td>'
          f"<td>{_rng(r.b_tokens)}</td><td>{_chunk_span('a', r.a_chunks)}</td><td>{_rng(r.a_chunk_words)}</td>"
          f"<td>{_rng(r.a_chunk_tokens)}</td><td>{edit}</td><td>{resync}</td>"
          f"<td>{_resync_vs_margin(r.resync_distance_tokens, c.margin)}</td></tr>\n")
    w("</tbody>\n</table></div>\n</section>\n")


def _why(w, c: Comparison) -> None:
    w('<section id="why">\n<h2>Why the chunks moved</h2>\n')
    explanations = explain_comparison(c)
    if not explanations:
        w('<p class="muted">No phase shift: nothing moved that the edits did not touch.</p>\n</section>\n')
        return
    for x in explanations:
        n = x.region + 1
        w(f'<p id="why-{n}"><a href="#region-{n}">#{n}</a> <span class="muted">({_e(x.cause)})</span> '
          f"{_e(x.text)}</p>\n")
    w("</section>\n")


def _legend(w, rule: str) -> None:
    w('<section id="legend">\n<h2>Legend</h2>\n<div class="legend">\n<div>\n<h3>Cut kinds of '
      f'{_e(rule)} <span class="muted">(left edge and marker of each chunk)</span></h3>\n<ul class="keys">\n')
    for kind in marker_kinds(rule):
        w(f'<li><span class="mk mk-{kind}" aria-hidden="true"></span> <b>{_e(KIND_LABELS[kind])}</b> '
          f"<span class=\"muted\">({KIND_SHAPES[kind]})</span>: {_e(kind_help(rule, kind))}</li>\n")
    w('</ul>\n</div>\n<div>\n<h3>Statuses <span class="muted">(background of each chunk)</span></h3>\n'
      '<ul class="keys">\n')
    for status in STATUSES:
        w(f'<li><span class="sw s-{status}" aria-hidden="true"></span> <b class="st-{status}">{status}</b>: '
          f"{_e(STATUS_HELP[status])}</li>\n")
    w("</ul>\n</div>\n</div>\n</section>\n")


def _documents(w, c: Comparison, name_a: str, name_b: str, marks: "_EditMarks") -> None:
    """Both documents side by side, one grid row per reused pair (so the pair sits on
    one line) and one per gap between pairs (A's unpaired chunks beside B's). Runs of
    reused pairs fold into one line ("14 reused chunks, 3,210 tokens"), a <details>
    that opens without script, keeping the pair next to each change open as context."""
    a, b = c.a, c.b
    region_of_b = {}
    for n, r in enumerate(c.phase_shift_regions, 1):
        for j in range(*r.b_chunks):
            region_of_b[j] = n
    w('<section id="documents">\n<h2>Documents</h2>\n<p class="muted">Reused pairs sit side by side; between '
      "them, what only one version has. Each chunk shows its source text exactly, "
      "between its first and last word. In changed chunks the words of A deleted or replaced are "
      "<del>struck through</del>, the words of B inserted or replacing are <ins>underlined</ins>, and "
      '<span class="gap-mark" title="words of the other version here"></span> marks where the other '
      "version has words this one lacks. Runs of unchanged chunks are folded: open them to read.</p>\n"
      '<div class="row heads">')
    for side, name, ch in (("A", name_a, a), ("B", name_b, b)):
        w(f'<div class="colhead"><span class="side">{side}</span> {_name(name)} <span class="muted">'
          f"{_n(len(ch.chunks), 'chunk')}, {_n(ch.word_count, 'word')}</span></div>")
    w("</div>\n")

    def cell(side: str, ch: Chunking, indices: Iterable[int]) -> None:
        status = c.status_a if side == "a" else c.status_b
        partner = c.partner_a if side == "a" else c.partner_b
        w('<div class="cell">')
        for i in indices:
            _chunk(w, side, ch, ch.chunks[i], status[i], partner[i], region_of_b.get(i) if side == "b" else None,
                   marks)
        w("</div>")

    def pair_row(i: int, j: int) -> None:
        w('<div class="row pair">')
        cell("a", a, (i,))
        cell("b", b, (j,))
        w("</div>\n")

    for row in _document_rows(c):
        if row[0] == "gap":
            w('<div class="row gap">')
            cell("a", a, row[1])
            cell("b", b, row[2])
            w("</div>\n")
        elif row[0] == "pair":
            pair_row(row[1], row[2])
        else:
            pairs = row[1]
            tokens = sum(b.chunks[j].tokens for _, j in pairs)
            (i0, j0), (i1, j1) = pairs[0], pairs[-1]
            w(f'<details class="reused-run"><summary><b>{len(pairs):,} reused chunks, {tokens:,} tokens</b> '
              f'<span class="muted">unchanged, A #{i0}–#{i1} = B #{j0}–#{j1}</span></summary>\n')
            for i, j in pairs:
                pair_row(i, j)
            w("</details>\n")
    if not a.chunks and not b.chunks:
        w('<p class="muted">Neither document has any chunk (no words).</p>\n')
    w("</section>\n")


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


def _chunk(w, side: str, ch: Chunking, k: Chunk, status: str, partner: int | None, region: int | None,
           marks: "_EditMarks") -> None:
    mk = marker_kind(k.kind, k.snapped)
    other = "b" if side == "a" else "a"
    kind = _e(k.kind) + (", snapped" if k.snapped else "") + (f" · {_e(k.boundary)} end" if k.boundary != "end" else "")
    extra = ""
    if partner is not None:
        extra = f' · = <a href="#{other}-chunk-{partner}">{other.upper()} #{partner}</a>'
    elif region is not None:
        extra = f' · <a href="#region-{region}">region {region}</a>'
    # reused and shifted chunks hold no changed word by definition: no need to look
    text = _e(ch.text[k.start:k.end]) if status in (REUSED, SHIFTED) else marks.marked_text(side, ch, k)
    w(f'<div class="chunk k-{mk} s-{status}" id="{side}-chunk-{k.index}">'
      f'<div class="ch"><span class="mk mk-{mk}" aria-hidden="true"></span>'
      f'<a href="#{side}-chunk-{k.index}">#{k.index}</a> · {kind} · <span class="st st-{status}">{status}</span>'
      f' · {k.tokens} tokens · <code class="hash" title="{k.hash}">{k.hash[:HASH_PREFIX_CHARS]}</code>{extra}</div>'
      f'<div class="tx">{text}</div></div>')


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

    def marked_text(self, side: str, ch: Chunking, k: Chunk) -> str:
        """The chunk's source text, escaped, its changed words in <del> (A) or <ins> (B):
        elements, so the mark survives without colour (struck through, underlined) and
        in a screen reader; the text between the tags is the source, unchanged."""
        tag = "del" if side == "a" else "ins"
        what = "inserted in B" if side == "a" else "deleted from A"
        changed, points = self.changed[side], self.points[side]
        starts, ends, text = ch.words.starts, ch.words.ends, ch.text
        out: list[str] = []
        pos = k.start
        i = k.start_word
        last = k.end_word + (1 if k.end_word == ch.word_count else 0)  # a point after the document's last word
        while i < last:
            if i in points:
                at = int(starts[i]) if i < ch.word_count else k.end
                out.append(_e(text[pos:at]))
                out.append(f'<span class="gap-mark" title="{_n(points[i], "word")} {what} here"></span>')
                pos = at
            if i < k.end_word and changed[i]:
                j = i + 1
                while j < k.end_word and changed[j] and j not in points:
                    j += 1
                out.append(_e(text[pos:int(starts[i])]))
                out.append(f"<{tag}>{_e(text[int(starts[i]):int(ends[j - 1])])}</{tag}>")
                pos = int(ends[j - 1])
                i = j
            else:
                i += 1
        out.append(_e(text[pos:k.end]))
        return "".join(out)


def _quote(ch: Chunking, start: int, end: int) -> str:
    words = ch.words.texts[start:min(end, start + QUOTE_WORDS)]
    return _e(" ".join(words)) + (" …" if end - start > QUOTE_WORDS else "")


def _changes(w, c: Comparison, marks: _EditMarks) -> None:
    """The review's table of contents: every edit quoted with links to its chunks, then
    every edited, new, removed, shifted and violating chunk as a link."""
    a, b = c.a, c.b
    edits = [op for op in c.ops if op.tag != EQUAL]
    w(f'<section id="changes">\n<h2>Changes</h2>\n<p>{_n(len(edits), "edit")}')
    if not edits:
        w(": the two versions have the same words.</p>\n")
    else:
        w(f' <span class="muted">(A <del>deleted or replaced</del>, B <ins>inserted or replacing</ins>; at most '
          f"{QUOTE_WORDS} words of each quoted)</span>:</p>\n<ol class=\"edits\">\n")
        for op in edits:
            ia = a.chunk_at_word(min(op.a_start, a.word_count - 1)) if a.chunks else None
            ib = b.chunk_at_word(min(op.b_start, b.word_count - 1)) if b.chunks else None
            old = f"<del>{_quote(a, op.a_start, op.a_end)}</del>" if op.a_end > op.a_start else ""
            new = f"<ins>{_quote(b, op.b_start, op.b_end)}</ins>" if op.b_end > op.b_start else ""
            w(f"<li>{_link('a', ia)} → {_link('b', ib)} <span class=\"muted\">{_e(op.tag)}</span> "
              f'<span class="quote">{old}{" " if old and new else ""}{new}</span></li>\n')
        w("</ol>\n")
    lists = [("edited", "b", EDITED), ("new", "b", NEW), ("shifted", "b", SHIFTED),
             ("edited", "a", EDITED), ("removed", "a", REMOVED), ("shifted", "a", SHIFTED)]
    w('<div class="scroll"><table class="kv jump">\n')
    for label, side, status in lists:
        statuses = c.status_a if side == "a" else c.status_b
        found = [k for k, st in enumerate(statuses) if st == status]
        if found:
            w(f'<tr><th><span class="st-{status}">{label}</span> {side.upper()}</th><td>'
              + ", ".join(_link(side, k) for k in found) + "</td></tr>\n")
    if c.violations:
        w('<tr><th><span class="over">violating</span> B</th><td>'
          + ", ".join(_link("b", v.b_chunk) for v in c.violations) + "</td></tr>\n")
    w("</table></div>\n</section>\n")


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


_CSS = """
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { margin: 0 auto; max-width: 1600px; padding: 16px 24px 48px; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; }
a { color: var(--link); }
h1 { font-size: 22px; margin: 0 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 17px; margin: 24px 0 8px; }
h3 { font-size: 14px; margin: 12px 0 6px; }
code, .tx { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; }
.muted { color: var(--muted); font-weight: normal; }
.docs { margin: 0; font-size: 15px; overflow-wrap: anywhere; }
.side { display: inline-block; min-width: 1.6em; padding: 0 4px; border-radius: 3px; text-align: center;
  background: var(--fg); color: var(--bg); font-weight: 600; font-size: 12px; }
header p.muted { margin: 2px 0 0; font-size: 12px; }
nav { margin: 10px 0 0; font-size: 13px; }
.verdict { margin: 14px 0 4px; padding: 8px 12px; border-radius: 4px; font-weight: 600; border-left: 6px solid; }
.verdict.held { background: var(--ok-bg); border-color: var(--ok); }
.verdict.broken { background: var(--bad-bg); border-color: var(--bad); }
.verdict.unchecked { background: var(--panel); border-color: var(--muted); font-weight: 500; }
.verdict .mark { font-size: 16px; }
.verdict.held .mark { color: var(--ok); }
.verdict.broken .mark { color: var(--bad); }
.keynums { margin: 4px 0 0; }
.shifted-text { color: var(--s-shifted); font-weight: 600; }
.over { color: var(--bad); font-weight: 600; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(420px, 100%), 1fr)); gap: 16px; margin-top: 12px; }
.card { background: var(--panel); border: 1px solid var(--rule); border-radius: 6px; padding: 4px 14px 12px; }
.card h2 { margin-top: 10px; }
table { border-collapse: collapse; }
th, td { text-align: left; vertical-align: top; padding: 3px 10px 3px 0; }
.kv th { font-weight: 500; color: var(--muted); white-space: nowrap; }
.phash { font-size: 13px; font-weight: 600; overflow-wrap: anywhere; }
.churn { width: 100%; }
.churn thead th { border-bottom: 1px solid var(--rule); font-weight: 600; }
.churn tbody th { font-weight: 500; color: var(--muted); white-space: nowrap; }
.churn td { font-variant-numeric: tabular-nums; }
.grid { width: 100%; font-size: 13px; font-variant-numeric: tabular-nums; }
.grid thead th { border-bottom: 1px solid var(--rule); white-space: nowrap; }
.grid td { border-bottom: 1px solid var(--panel); }
.legend { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(420px, 100%), 1fr)); gap: 8px 24px; }
.keys { list-style: none; padding: 0; margin: 0; }
.keys li { margin: 3px 0; }
.sw { display: inline-block; width: 28px; height: 14px; vertical-align: -2px; border-radius: 2px;
  border: 1px solid var(--rule); }
.sw.s-shifted { border: 2px solid var(--s-shifted); }
.mk { display: inline-block; width: 10px; height: 10px; margin-right: 6px; vertical-align: -1px; }
.mk-primary { width: 4px; height: 14px; vertical-align: -3px; margin-left: 3px; margin-right: 9px;
  background: var(--k-primary); }
.mk-backup { width: 11px; height: 11px; clip-path: polygon(50% 0, 100% 50%, 50% 100%, 0 50%);
  background: var(--k-backup); }
.mk-hard { width: 11px; height: 11px; clip-path: polygon(50% 0, 100% 92%, 0 92%); background: var(--k-hard); }
.mk-snapped { border-radius: 50%; background: var(--k-snapped); }
.mk-end { width: 9px; height: 9px; margin-left: 1px; background: var(--k-end); }
.row { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; }
.row.heads { position: sticky; top: 0; z-index: 1; background: var(--bg); padding: 6px 0;
  border-bottom: 1px solid var(--rule); margin-bottom: 6px; }
.colhead { font-weight: 600; overflow-wrap: anywhere; }
.row.pair, .row.gap { content-visibility: auto; contain-intrinsic-size: auto 120px; }
.row.gap { border-top: 1px dashed var(--rule); border-bottom: 1px dashed var(--rule); margin: 4px 0; padding: 4px 0; }
.cell { min-width: 0; }
.chunk { margin: 4px 0; padding: 3px 6px 5px 8px; border: 2px solid transparent; border-left: 5px solid var(--k-end);
  border-radius: 2px; }
.k-primary { border-left-color: var(--k-primary); }
.k-backup { border-left-color: var(--k-backup); }
.k-hard { border-left-color: var(--k-hard); }
.k-snapped { border-left-color: var(--k-snapped); }
.k-end { border-left-color: var(--k-end); }
.k-fill { border-left-color: var(--k-fill); }
.k-long-word { border-left-color: var(--k-long-word); }
.mk-fill { width: 11px; height: 11px; clip-path: polygon(50% 0, 100% 50%, 50% 100%, 0 50%);
  background: var(--k-fill); }
.mk-long-word { width: 11px; height: 11px; clip-path: polygon(50% 0, 100% 92%, 0 92%); background: var(--k-long-word); }
.ok-text { color: var(--ok); font-weight: 600; }
.rules th, .rules td { padding-right: 18px; }
.s-reused { background: var(--t-reused); }
.s-edited { background: var(--t-edited); }
.s-new { background: var(--t-new); }
.s-removed { background: var(--t-removed); }
.s-shifted { background: var(--t-shifted); }
.chunk.s-shifted { border-top-color: var(--s-shifted); border-right-color: var(--s-shifted);
  border-bottom-color: var(--s-shifted); }
.ch { font-size: 12px; color: var(--muted); margin-bottom: 2px; }
.ch a { color: inherit; }
.hash { font-size: 11.5px; }
.st { font-weight: 600; color: var(--fg); }
.st-shifted { color: var(--s-shifted); font-weight: 700; }
.tx { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12.5px; line-height: 1.5; }
:target { outline: 3px solid var(--link) !important; outline-offset: 1px; }
.scroll { overflow-x: auto; max-width: 100%; }
ins, del { color: inherit; border-radius: 2px; text-decoration-thickness: 2px; }
ins { background: var(--ins-bg); text-decoration-line: underline; text-underline-offset: 3px; }
del { background: var(--del-bg); text-decoration-line: line-through; }
ins::before, del::before { font-weight: 700; font-size: 85%; padding: 0 1px; text-decoration: none;
  display: inline-block; }
ins::before { content: "+"; }
del::before { content: "\\2212"; }
.gap-mark::before { content: "\\2038"; font-weight: 700; color: var(--bad); padding: 0 1px; }
.edits { margin: 4px 0 8px; padding-left: 2.2em; font-size: 13px; }
.edits li { margin: 2px 0; overflow-wrap: anywhere; }
.jump { font-size: 13px; }
.jump td { overflow-wrap: anywhere; }
details.reused-run { margin: 6px 0; border: 1px dashed var(--rule); border-radius: 4px; background: var(--panel); }
details.reused-run > summary { padding: 5px 10px; cursor: pointer; font-size: 13px; }
details.reused-run[open] > summary { border-bottom: 1px dashed var(--rule); }
details.reused-run > .row { padding: 0 6px; }
@media (max-width: 720px) {
  body { padding: 10px 10px 32px; }
  .row { grid-template-columns: minmax(0, 1fr); gap: 0; }
  .row.heads { position: static; }
  .row > .cell:first-child .ch::before { content: "A "; font-weight: 700; color: var(--fg); }
  .row > .cell:last-child .ch::before { content: "B "; font-weight: 700; color: var(--fg); }
  .kv th { white-space: normal; }
}
@media print { .row.heads { position: static; } .row.pair, .row.gap { content-visibility: visible; } }
"""


def _css() -> str:
    return (f":root {{ {_theme_vars('light')} }}\n"
            f"@media (prefers-color-scheme: dark) {{ :root {{ {_theme_vars('dark')} }} }}\n" + _CSS + LAB_CSS)
