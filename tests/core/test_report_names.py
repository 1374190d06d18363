"""Document names in the HTML report are data: escaped, controls shown as escapes, and
isolated (<bdi>, Unicode isolates in <title>) so a bidi override or a right-to-left name
cannot reverse the counts beside it (issue 17, defect 9)."""

from __future__ import annotations

from html.parser import HTMLParser

from hypothesis import example, given
from hypothesis import strategies as st

from steadlith_core import ChunkerParams, chunk, compare, render_report
from steadlith_core.errors import visible

PARAMS = ChunkerParams(min_tokens=4, max_tokens=16, window_words=4, primary_mask=0x3, primary_remainder=0)
A = "one two three four five six seven eight nine ten eleven twelve\n"
B = "one two three four five six seven eight nine ten eleven twelve thirteen\n"
COMPARISON = compare(chunk(A, PARAMS), chunk(B, PARAMS))
ACTING = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069") | {chr(c) for c in range(0x20) if chr(c) != "\n"}


class Reader(HTMLParser):
    """The texts of <bdi> elements and of <title>, as a browser reads them."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.bdi: list[str] = []
        self.title = ""

    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)
        if tag == "bdi":
            self.bdi.append("")

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop() != tag:
            pass

    def handle_data(self, data):
        if "bdi" in self.stack:
            self.bdi[-1] += data
        elif self.stack and self.stack[-1] == "title":
            self.title += data


def read(name_a: str, name_b: str) -> tuple[str, Reader]:
    page = render_report(COMPARISON, name_a, name_b)
    reader = Reader()
    reader.feed(page)
    return page, reader


NAMES = st.text(st.sampled_from(list("<>&\"' /bimg=x\n\t\x1b\u202e\u202d\u2066\u2069\u05d0\u0627é18")), min_size=1,
                max_size=24)


@given(NAMES, NAMES)
@example("report\u202elmth.exe", "v2.md")
@example('<img src="/etc/passwd">', "<script>alert(1)</script>")
def test_names_are_isolated_and_escaped(name_a, name_b):
    page, reader = read(name_a, name_b)
    # header and column heads: each name inside its own <bdi>, shown escaped
    assert reader.bdi.count(visible(name_a)) >= 2 and reader.bdi.count(visible(name_b)) >= 2
    assert reader.title == f"Steadlith report: \u2068{visible(name_a)}\u2069 → \u2068{visible(name_b)}\u2069"
    # no control or bidi formatting character of the names reaches the page; the only
    # isolates are the title's own (in <title> and <h1>) around the escaped names
    assert set(page) & ACTING <= {"\u2068", "\u2069"}
    assert page.count("\u2068") == page.count("\u2069") == 4


def test_a_bidi_override_does_not_reach_the_counts():
    page, reader = read("notes\u202e.md", "b.md")
    assert "\u202e" not in page
    assert "<bdi>notes\\u202e.md</bdi>" in page
