"""The text scan on numpy alone: what the compiled kernel computes, from the same UTF-8
bytes, for a platform where the extension could not be built.

Everything is a pass over a byte array (a piece of about 1 MB of a longer document),
never a loop over words: whitespace by byte comparisons plus a check of the lead bytes
of the few multi-byte whitespace characters; code-point offsets by counting the UTF-8
continuation bytes before each byte offset (nothing to count in ASCII text);
the canonical text by one boolean compress (each word's bytes, plus the first one or
two bytes of the gap after it, overwritten by the separator); the words' symbols by
the vectorized xxh3_64 of `xxh3`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import xxhash

from . import outputs
from . import threads as numpy_threads
from .xxh3 import BLOCK_WORDS, xxh3_64_many


class RawScan(NamedTuple):
    """Per-word arrays of a scan, in word order (the layout both kernels return)."""

    starts: np.ndarray  # int64 code-point offset of each word in the source
    ends: np.ndarray  # int64
    para: np.ndarray  # bool: the word starts a paragraph (docs/contract/normalizer.md#paragraphs)
    symbols: np.ndarray  # uint64 xxh3_64 of the word's UTF-8, seed 1 at paragraph starts
    canonical: bytes  # the canonical UTF-8 text of the whole stream (docs/contract/normalizer.md#canonical-text)
    canonical_ends: np.ndarray  # int64 end of each word in `canonical`
    sentence_ends: np.ndarray  # bool: the word ends a sentence (docs/contract/tttd-v1.md#snapping, segment.ends_sentence)


# ---- the scan ---------------------------------------------------------------------

_U8 = np.uint8


def _whitespace(b: np.ndarray, ascii: bool = False) -> np.ndarray:
    """True at every byte of a whitespace character (docs/contract/normalizer.md#whitespace), with one True more at
    each end (the text is as if between two spaces: every word then has an edge before
    and after it in the flags). `ascii`: no byte is above 0x7F, so no multi-byte ones."""
    # the single-byte ones: U+0009..U+000D, U+001C..U+001F, U+0020
    padded = np.empty(b.size + 2, dtype=bool)
    padded[0] = padded[-1] = True
    ws = padded[1:-1]
    np.equal(b, 0x20, out=ws)
    ws |= (b - _U8(0x09)) < _U8(5)
    ws |= (b - _U8(0x1C)) < _U8(4)
    if ascii:
        return padded
    # the multi-byte ones start with C2, E1, E2 or E3
    leads = np.flatnonzero((b - _U8(0xC2)) < _U8(0x22))
    if leads.size:
        leads = leads[np.isin(b[leads], (0xC2, 0xE1, 0xE2, 0xE3))]
    if leads.size:
        # past the end, "clip" repeats the last byte: a lead byte, which never matches
        # the continuation bytes tested below (valid UTF-8 never ends inside a character)
        lead, b1, b2 = b[leads], b.take(leads + 1, mode="clip"), b.take(leads + 2, mode="clip")
        two = (lead == 0xC2) & ((b1 == 0x85) | (b1 == 0xA0))  # U+0085, U+00A0
        three = (
            ((lead == 0xE1) & (b1 == 0x9A) & (b2 == 0x80))  # U+1680
            # U+2000..U+200A (a continuation byte is >= 0x80), U+2028, U+2029, U+202F
            | ((lead == 0xE2) & (b1 == 0x80) & ((b2 <= 0x8A) | (b2 == 0xA8) | (b2 == 0xA9) | (b2 == 0xAF)))
            | ((lead == 0xE2) & (b1 == 0x81) & (b2 == 0x9F))  # U+205F
            | ((lead == 0xE3) & (b1 == 0x80) & (b2 == 0x80))  # U+3000
        )
        at = leads[two | three]
        ws[at] = True
        ws[at + 1] = True
        ws[leads[three] + 2] = True
    return padded


_ASCII_CLOSERS = np.frombuffer(b"\"')]}", dtype=np.uint8)
_ASCII_ENDS = np.frombuffer(b".!?", dtype=np.uint8)
# The last UTF-8 byte of every closer and sentence mark: " ' ) ] } . ! ?, and the final
# bytes of U+201D U+2019 U+00BB U+2026 U+3002 U+FF01 U+FF1F.
_SENTENCE_LAST_BYTES = np.zeros(256, dtype=bool)
_SENTENCE_LAST_BYTES[np.frombuffer(b"\"')]}.!?\x9d\x99\xbb\xa6\x82\x81\x9f", dtype=np.uint8)] = True


def _before(b: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """b[q - 1], b[q - 2], b[q - 3]. Before the text "clip" reads b[0]: every use is
    guarded by how many bytes the word has left, so those reads never count."""
    return b.take(q - 1, mode="clip"), b.take(q - 2, mode="clip"), b.take(q - 3, mode="clip")


def sentence_ends(b: np.ndarray, byte_starts: np.ndarray, byte_ends: np.ndarray) -> np.ndarray:
    """segment.ends_sentence of every word, on its UTF-8 bytes b[start:end]: strip the
    closers at the end (a few rounds over the words still ending in one), then test the
    last character. UTF-8 is self-synchronizing: an encoded closer or mark matched at
    the end of the bytes is that character at the end of the word."""
    out = np.zeros(byte_ends.size, dtype=bool)
    if not byte_ends.size:
        return out
    # only words whose last byte ends a closer or a mark can end a sentence: few in prose
    maybe = np.flatnonzero(_SENTENCE_LAST_BYTES.take(b[byte_ends - 1]))  # take: [] converts the bytes to intp first
    byte_starts, byte_ends = byte_starts[maybe], byte_ends[maybe]
    q = byte_ends.astype(np.int64).copy()
    live = np.arange(q.size)
    while live.size:
        ql, left = q[live], q[live] - byte_starts[live]
        last, b2, b3 = _before(b, ql)
        strip = np.where(np.isin(last, _ASCII_CLOSERS) & (left >= 1), 1, 0)
        strip[(left >= 3) & (b3 == 0xE2) & (b2 == 0x80) & ((last == 0x9D) | (last == 0x99))] = 3
        strip[(left >= 2) & (b2 == 0xC2) & (last == 0xBB)] = 2
        q[live] -= strip
        live = live[strip > 0]
    left = q - byte_starts
    last, b2, b3 = _before(b, q)
    three = (left >= 3) & (
        ((b3 == 0xE2) & (b2 == 0x80) & (last == 0xA6))
        | ((b3 == 0xE3) & (b2 == 0x80) & (last == 0x82))
        | ((b3 == 0xEF) & (b2 == 0xBC) & ((last == 0x81) | (last == 0x9F)))
    )
    out[maybe] = (left >= 1) & (np.isin(last, _ASCII_ENDS) | three)
    return out


def _code_points(b: np.ndarray, byte_starts: np.ndarray, byte_ends: np.ndarray,
                 byte_lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Code-point offsets (int32) of the words at byte offsets [byte_starts, byte_ends),
    and how many continuation bytes `b` has (its code points are its bytes less those).

    A code point's offset is its byte offset less the continuation bytes before it.
    Place each continuation byte after the word that starts at or before it: it is in
    that word, or in the gap after it (a multi-byte space)."""
    n = byte_starts.size
    continuation = np.flatnonzero(b.view(np.int8) < -64)  # 0x80..0xBF, in one comparison
    owner = np.searchsorted(byte_starts, continuation, "right") - 1
    # before word k: those owned by words before it, or by none (the leading gap)
    starts = byte_starts - np.cumsum(np.bincount(owner + 1, minlength=n + 1)[:n], dtype=np.int32)
    inside = owner >= 0
    inside[inside] = continuation[inside] < byte_ends[owner[inside]]
    ends = starts + byte_lengths
    ends -= np.bincount(owner[inside], minlength=n)[:n].astype(np.int32)
    return starts, ends, continuation.size


class _Piece(NamedTuple):
    """What _scan_piece returns: the piece's scan (offsets from its start, canonical text
    as a uint8 array), the line breaks still open at its end, its code points, the line
    breaks of its own before its first word, and that word's UTF-8 (None without
    words): the last two let _carried_into redo word 0 for breaks carried in later."""

    raw: RawScan
    still_open: int | None
    code_points: int
    leading_breaks: int
    first_word: bytes | None


def _scan_piece(data: bytes | memoryview, starts_text: bool, ascii: bool | None, with_sentence_ends: bool,
                block_words: int | None = None) -> _Piece:
    """scan() of one piece, with offsets from the start of the piece, and the line breaks
    still open at its end: those after its last word, or with none, all of its own.
    `starts_text`: the piece starts the text (its first word never starts a paragraph, and
    with no word it leaves None open); any other piece is scanned as if words came
    before it with no line break open, which _carried_into corrects.
    The canonical text and its ends start at the first word: the separator before it
    is the caller's. `ascii`: whether no byte is above 0x7F, when the caller knows.
    `block_words`: the words of a pass of the xxh3 of short words.

    Per-word arrays are int32 (a piece is shorter than MAX_BYTES) and every per-word
    temporary is freed as soon as it is read for the last time: the arrays of a piece
    are as large as its words, and what is alive at once is what the allocator must
    find pages for."""
    b = np.frombuffer(data, dtype=np.uint8)
    if ascii is None:  # ASCII text has no multi-byte characters to place
        ascii = not b.size or int(b.max()) < 0x80
    padded_ws = _whitespace(b, ascii)
    # Word edges are where whitespace starts or stops: byte offsets, alternately the
    # start of a word and its end (the flags are padded with whitespace at both ends).
    edges = np.flatnonzero(padded_ws[1:] != padded_ws[:-1])  # a boolean mask: nonzero counts it with SIMD
    ws = padded_ws[1:-1]
    # contiguous int32 copies: every later pass over them reads them with unit stride
    byte_starts, byte_ends = edges[0::2].astype(np.int32), edges[1::2].astype(np.int32)
    del edges
    n = byte_starts.size
    byte_lengths = byte_ends - byte_starts

    if ascii:  # a byte is a code point
        starts, ends, continuation_bytes = byte_starts, byte_ends, 0
    else:
        starts, ends, continuation_bytes = _code_points(b, byte_starts, byte_ends, byte_lengths)

    # Line breaks: every \r, and every \n not right after a \r (so \r\n counts once).
    # They lie in gaps; the gap before word k holds those placed before word k. Gaps
    # with two or more start a paragraph: found among the few breaks, sorted by gap,
    # not by a count for every word.
    control = np.flatnonzero(b <= 0x0D)  # one pass for both: tabs and line breaks, in prose
    control_bytes = b[control]
    cr, lf = control[control_bytes == 0x0D], control[control_bytes == 0x0A]
    del control, control_bytes
    if cr.size:
        lf = lf[~np.isin(lf - 1, cr)]
    gap_of_break = np.sort(np.searchsorted(byte_starts, np.concatenate([cr, lf])))  # in 0..n (n: after the last)
    leading_breaks = int(np.searchsorted(gap_of_break, 0, "right"))
    trailing_breaks = gap_of_break.size - int(np.searchsorted(gap_of_break, n, "left"))
    twice = gap_of_break[1:][gap_of_break[1:] == gap_of_break[:-1]]
    para = np.zeros(n, dtype=bool)
    para[twice[twice < n]] = True
    del gap_of_break, twice
    if n and starts_text:
        para[0] = False  # word 0 never starts a paragraph
    still_open = None if starts_text and not n else trailing_breaks

    symbols = xxh3_64_many(b, byte_starts, byte_lengths, para, block_words)

    # Canonical text: keep each word and the first byte (two at a paragraph start) of
    # the gap before the next word, then write the separators over the kept gap bytes.
    # A paragraph's gap holds two line breaks, so it has the two bytes to keep.
    sep = para.astype(np.int32)
    sep += 1
    if n:
        sep[0] = 0
    canonical_ends = byte_lengths + sep
    np.cumsum(canonical_ends, out=canonical_ends)
    first, last = (int(byte_starts[0]), int(byte_ends[-1])) if n else (0, 0)
    first_word = bytes(b[first : int(byte_ends[0])]) if n else None
    if int(canonical_ends[-1] if n else 0) == last - first:
        # From the first word to the last, every whitespace byte is one kept as a
        # separator (words parted by one space, paragraphs by two line breaks): the
        # canonical text is that stretch, with the separators written over.
        canonical = b[first:last].copy()
    else:
        keep = ~ws
        keep[byte_ends[:-1]] = True
        keep[byte_ends[:-1][para[1:]] + 1] = True
        canonical = b[keep]
        del keep
    del ws, padded_ws
    del byte_lengths, sep
    # the separator before each word after the first starts where the word before it ends
    gap = canonical_ends[:-1]
    canonical[gap] = ord(" ")
    paragraph_gaps = gap[para[1:]]
    canonical[paragraph_gaps] = ord("\n")
    canonical[paragraph_gaps + 1] = ord("\n")
    sentence = sentence_ends(b, byte_starts, byte_ends) if with_sentence_ends else None
    # int32 already, the layout of kernel.scan: scan() refuses a text whose offsets would not fit
    return _Piece(RawScan(starts, ends, para, symbols, canonical, canonical_ends, sentence), still_open,
                  b.size - continuation_bytes, leading_breaks, first_word)


# Documents are scanned in pieces of about this many bytes: the temporaries of a piece,
# a dozen arrays of a byte or 8 bytes a word, stay in the cache, where those of a
# whole 10 MB document would each be tens of megabytes.
PIECE_BYTES = 1 << 20

# Offsets are int32 (kernel.OFFSET); the canonical text is never longer than the UTF-8.
MAX_BYTES = (1 << 31) - 1


def scan(data: bytes | str, sentence_ends: bool = True) -> RawScan:
    """Words, paragraph flags, symbols and canonical text of UTF-8 `data`, or of a str
    (offsets in code points either way), offsets as int32. `sentence_ends=False` leaves
    that field None: CanonicalText computes the flags of the words it is asked about
    from the canonical text.

    The pieces are scanned on numpy_threads' threads, each as if words came before it
    with no line break open (the first as the start of the text), then joined in order:
    only a piece's first word can depend on the pieces before it (_carried_into). A
    str is cut in pieces of characters, each encoded to UTF-8 when it is scanned: no
    UTF-8 copy of the whole text is ever made."""
    if not isinstance(data, str):
        data = bytes(data)
    if len(data) > MAX_BYTES:
        raise ValueError(f"the document is too large for the text kernel: offsets pass {MAX_BYTES}")
    threads = numpy_threads.for_bytes(len(data))
    pieces = _pieces(data, _piece_size(len(data), threads))
    ascii = data.isascii()  # a str knows; bytes: 8 bytes a step. A piece of an ASCII text is ASCII
    if len(pieces) == 1:
        raw = _scan_piece(_utf8(data), True, ascii, sentence_ends).raw
        return raw._replace(canonical=raw.canonical.tobytes())
    view = data if isinstance(data, str) else memoryview(data)  # bytes: pieces are slices, not copies
    block_words = BLOCK_WORDS if threads == 1 else numpy_threads.PASS_WORDS

    def scan_one(bounds: tuple[int, int]) -> _Piece:
        a, z = bounds
        return _scan_piece(_utf8(view[a:z]), a == 0, ascii or None, sentence_ends, block_words)

    scanned = numpy_threads.run(scan_one, pieces, threads)
    if isinstance(data, str) and sum(p.raw.canonical.size + 2 for p in scanned) > MAX_BYTES:
        # the code points are at most len(data), checked above; the canonical text's
        # offsets, with a separator of up to 2 bytes before each piece, must fit too
        raise ValueError(f"the document is too large for the text kernel: offsets pass {MAX_BYTES}")
    carried = scanned[0].still_open
    for k in range(1, len(scanned)):
        scanned[k] = _carried_into(scanned[k], carried)
        carried = scanned[k].still_open
    return _joined(scanned, sentence_ends)


def _utf8(piece: str | bytes | memoryview) -> bytes | memoryview:
    """The UTF-8 of a piece of a str (with lone surrogates, which only a str built in
    Python holds, as surrogatepass writes them); a piece of bytes as it is."""
    if not isinstance(piece, str):
        return piece
    try:
        return piece.encode()
    except UnicodeEncodeError:
        return piece.encode("utf-8", "surrogatepass")


# On several threads a document is cut in about as many pieces as threads, none under
# this size (below it, the Python between numpy's loops outweighs what they share).
MIN_THREAD_PIECE = 1 << 17


def _piece_size(size: int, threads: int) -> int:
    if threads == 1:
        return PIECE_BYTES
    return min(PIECE_BYTES, max(MIN_THREAD_PIECE, -(-size // threads)))


def _carried_into(piece: _Piece, carried: int | None) -> _Piece:
    """`piece`, scanned as if words came before it with no line break open, with the
    line breaks `carried` from the pieces before it instead (None: no word came before).
    They are in the gap before its first word: that word starts a paragraph when they
    and its own leading breaks make two (never when it is the text's first word), which
    changes its flag and its symbol's seed. A piece with no word passes them on."""
    raw = piece.raw
    if piece.first_word is None:
        return piece._replace(still_open=None if carried is None else carried + piece.still_open)
    starts_paragraph = carried is not None and carried + piece.leading_breaks >= 2
    if starts_paragraph == bool(raw.para[0]):
        return piece
    para, symbols = raw.para.copy(), raw.symbols.copy()
    para[0] = starts_paragraph
    symbols[0] = xxhash.xxh3_64_intdigest(piece.first_word, int(starts_paragraph))
    return piece._replace(raw=raw._replace(para=para, symbols=symbols))


def _joined(pieces: list[_Piece], with_sentence_ends: bool) -> RawScan:
    """One scan from the scans of consecutive pieces: offsets moved by the code points
    before each piece, canonical text and ends by the canonical text before it plus the
    separator before its first word (none before word 0).

    It takes the pieces from `pieces` (the list is emptied) and joins one field at a
    time, letting each piece's array of that field go once it is copied: at the peak
    the pieces' arrays and one joined field are alive, not the pieces and every
    joined field."""
    places = []  # each piece's words in the joined arrays, and what its offsets move by
    texts: list[bytes | np.ndarray] = []
    k = code_points = canonical_size = 0
    for piece in pieces:
        raw = piece.raw
        m = raw.starts.size
        if m:
            sep = 0 if k == 0 else (2 if raw.para[0] else 1)
            if sep:
                texts.append(b"\n\n" if sep == 2 else b" ")
            texts.append(raw.canonical)
            places.append((slice(k, k + m), code_points, canonical_size + sep))
            canonical_size += sep + int(raw.canonical_ends[-1])
            k += m
        code_points += piece.code_points
    n = k
    raws = [p.raw for p in pieces if p.raw.starts.size]
    pieces.clear()
    canonical = b"".join(texts)
    del texts

    def field(name: str, dtype: type, shift: int | None) -> np.ndarray:
        out = outputs.empty(n, dtype)  # kept for the next chunking when it dies (outputs.py)
        for i, (span, code_shift, canonical_shift) in enumerate(places):
            part = getattr(raws[i], name)
            raws[i] = raws[i]._replace(**{name: None})  # the piece's array goes once copied
            if shift is None:
                out[span] = part
            else:
                np.add(part, (code_shift, canonical_shift)[shift], out=out[span])
        return out

    symbols = field("symbols", np.uint64, None)
    starts = field("starts", np.int32, 0)
    ends = field("ends", np.int32, 0)
    canonical_ends = field("canonical_ends", np.int32, 1)
    para = field("para", bool, None)
    sentence = field("sentence_ends", bool, None) if with_sentence_ends else None
    return RawScan(starts, ends, para, symbols, canonical, canonical_ends, sentence)


def _pieces(data: bytes | str, size: int) -> list[tuple[int, int]]:
    """[start, end) ranges of about `size` bytes (characters of a str) covering `data`,
    each ending right after a space, a tab or a \n: so no character and no word is cut,
    and no \r\n either (its \r would end the piece). A range runs on to the first such
    byte at or after its target end (text with none for long, such as some CJK, gets
    longer ones)."""
    cuts, start = [], 0
    while len(data) - start > size + size // 2:
        end = _just_past_space(data, start + size, size)
        if end < 0 or end == len(data):
            break
        cuts.append(end)
        start = end
    bounds = [0] + cuts + [len(data)]
    return list(zip(bounds[:-1], bounds[1:]))


def _just_past_space(data: bytes | str, at: int, window: int) -> int:
    """The offset just past the first space, tab or \n at or after `at` (-1: none),
    looked for `window` bytes at a time so that a text without one ahead is read once."""
    spaces = (" ", "\n", "\t") if isinstance(data, str) else (b" ", b"\n", b"\t")
    while at < len(data):
        found = [i for i in (data.find(c, at, at + window) for c in spaces) if i >= 0]
        if found:
            return min(found) + 1
        at += window
    return -1
