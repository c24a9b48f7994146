"""The built site's layout as a reader meets it in Chromium: a link to a heading lands below the theme's
header however many rows it takes, a results table keeps its Framework column in view on a phone while
the figures scroll, the side-by-side view shows every line whole, and nothing is published that no page
uses (the theme's source maps, the README's screenshots).
"""
from __future__ import annotations

import re

import pytest
from browsing import SCREENSHOTS, Watch, browser_marks

pytestmark = browser_marks
CNN = "_gen/benchmarks/cnn_cifar10.html"
BENCHMARKS = [CNN, "_gen/benchmarks/gru_imdb.html"]


def settle(page):
    """Wait until the page stops scrolling (a jump may be smooth) and has laid out."""
    page.evaluate("""() => new Promise(done => {
        let last = -1, still = 0;
        const tick = () => {
            still = window.scrollY === last ? still + 1 : 0;
            last = window.scrollY;
            if (still >= 3) done(); else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
    })""")


# Where a heading and the header are, on the screen, after a jump to the heading's section.
WHERE = """id => {
    const section = document.getElementById(id);
    const heading = section.matches('h1, h2, h3') ? section : section.querySelector(':scope > :is(h1, h2, h3)');
    return {heading: heading.getBoundingClientRect().top,
            header: document.querySelector('.bd-header').getBoundingClientRect().bottom,
            headerHeight: document.querySelector('.bd-header').getBoundingClientRect().height,
            scrolled: window.scrollY, screen: window.innerHeight};
}"""

# The page's headings (h1 to h3) with a link target: Sphinx puts the id on the heading's section.
HEADINGS = """() => [...document.querySelectorAll('article :is(h1, h2, h3)')].map(h =>
    h.id || (h.parentElement.matches('section[id]') && h.parentElement.firstElementChild === h
             ? h.parentElement.id : null)).filter(Boolean)"""


# ---- 1. a jump to a heading lands below the header -----------------------------------------------

@pytest.mark.parametrize("width", [1280, 1400, 1920])
@pytest.mark.parametrize("path", BENCHMARKS)
def test_a_jump_to_every_heading_of_a_benchmark_page_lands_below_the_header(browser, server, path, width):
    """Below 1,920 px the theme's header wrapped onto two or three rows (100 to 135 px) while a jump left
    the theme's 80 px above the heading: at 1,280 px the "Train" heading hid under the header. Opening
    the page at a heading, and following a link to each heading in turn, leaves each one in sight, under
    the header."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    watch = Watch(page, server)
    page.goto(f"{server}/{path}#train")
    page.wait_for_load_state("networkidle")
    settle(page)
    where = page.evaluate(WHERE, "train")
    assert where["scrolled"] > 0 and where["header"] <= where["heading"] < where["screen"], \
        f"{path} opened at #train, {width} px: {where}"
    ids = page.evaluate(HEADINGS)
    assert {"results", "setup", "data", "model", "train", "infer"} <= set(ids), ids
    hidden = []
    for previous, heading in zip(["train", *ids], ids):
        if heading == previous:
            continue
        page.evaluate("id => { location.hash = id; }", heading)         # what a link to it does
        settle(page)
        where = page.evaluate(WHERE, heading)
        if not where["header"] <= where["heading"] < where["screen"]:
            hidden.append((heading, where))
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("() => { location.hash = 'train'; }")
    settle(page)
    page.screenshot(path=str(SCREENSHOTS / f"jump-to-train-{width}.png"), clip={"x": 0, "y": 0, "width": width,
                                                                                 "height": 300})
    assert hidden == [], f"{path} at {width} px: headings under the header after a jump: {hidden}"
    assert watch.errors == [] and watch.outside == [], (watch.errors, watch.outside)
    context.close()


@pytest.mark.parametrize("width", [1280, 1400, 1920])
def test_the_header_keeps_to_one_row_on_a_desktop_screen(browser, server, width):
    """From 1,280 px on the header is one row: its links, search and the colour mode beside the title,
    all within the screen."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(f"{server}/{CNN}")
    rows = page.evaluate("""() => {
        const items = ['.navbar-brand', '.bd-navbar-elements .nav-item', '.navbar-header-items__end .navbar-item']
            .flatMap(s => [...document.querySelectorAll('.bd-header ' + s)]).filter(e => e.checkVisibility());
        const middle = e => { const r = e.getBoundingClientRect(); return Math.round(r.top + r.height / 2); };
        return {tops: [...new Set(items.map(middle))],
                right: Math.max(...items.map(e => e.getBoundingClientRect().right)),
                height: document.querySelector('.bd-header').getBoundingClientRect().height, count: items.length};
    }""")
    assert rows["count"] >= 8, rows
    assert max(rows["tops"]) - min(rows["tops"]) <= 4, f"the header's items are on several rows at {width} px: {rows}"
    assert rows["height"] <= 81 and rows["right"] <= width, rows
    context.close()


# ---- 2. results tables on a phone ----------------------------------------------------------------

# Each results table's scrolling box, scrolled to its end; then where each row's first and last cells
# are, whether the first cell is the one painted at its middle, and its background and text colours.
SCROLLED = """() => [...document.querySelectorAll('.rosetta-results table')].map(table => {
    const holder = table.closest('.rosetta-results');
    let box = table.parentElement;
    while (box && box.scrollWidth <= box.clientWidth + 1) box = box === holder ? null : box.parentElement;
    if (!box) return {scrolls: false};
    box.scrollLeft = box.scrollWidth;
    const rows = [...table.rows].map(row => {
        const first = row.cells[0], last = row.cells[row.cells.length - 1];
        window.scrollBy(0, row.getBoundingClientRect().top - window.innerHeight / 2);     // on the screen
        const a = first.getBoundingClientRect(), b = last.getBoundingClientRect();
        const hit = document.elementFromPoint(a.left + a.width / 2, a.top + a.height / 2);
        const style = getComputedStyle(first);
        const edge = box.getBoundingClientRect();
        return {text: first.textContent.trim(), left: a.left, right: a.right, lastRight: b.right,
                edge: [edge.left, edge.right], onTop: !!hit && first.contains(hit),
                background: style.backgroundColor, color: style.color};
    });
    return {scrolls: true, scrolled: box.scrollLeft, rows,
            end: box.scrollLeft >= box.scrollWidth - box.clientWidth - 1};
})"""


def rgba(text: str) -> tuple:
    values = [float(v) for v in text[text.index("(") + 1:text.index(")")].replace("/", " ").replace(",", " ").split()]
    return (*values[:3], values[3] if len(values) > 3 else 1.0)


def contrast(a, b) -> float:
    def luminance(rgb):
        def channel(v):
            v /= 255
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
        return 0.2126 * channel(rgb[0]) + 0.7152 * channel(rgb[1]) + 0.0722 * channel(rgb[2])
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_on_a_phone_the_framework_column_stays_in_view_while_the_figures_scroll(browser, server, mode):
    """At 390 px a results table is wider than the screen and scrolls in its own box: scrolled to its
    last column, every row still shows its framework, painted over the figures that pass under it (an
    opaque background, the page's own in either mode), readable."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, color_scheme=mode)
    page = context.new_page()
    watch = Watch(page, server)
    page.goto(f"{server}/{CNN}")
    assert page.evaluate("document.documentElement.dataset.theme") == mode
    tables = page.evaluate(SCROLLED)
    assert tables and all(t["scrolls"] for t in tables), "a results table wider than a phone scrolls in its box"
    for table in tables:
        assert table["scrolled"] > 0 and table["end"], table
        body = table["rows"][1:]
        assert len(body) >= 5, table
        for row in table["rows"]:
            left, right = row["edge"]
            assert left - 1 <= row["left"] and row["right"] <= right + 1 and row["onTop"], \
                f"{mode}: the first column is out of view once the table is scrolled to its end: {row}"
            assert abs(row["lastRight"] - right) < 40, f"scrolled to the last column: {row}"
            background = rgba(row["background"])
            assert background[3] == 1, f"{mode}: the figures show through the sticky cell: {row}"
            assert contrast(rgba(row["color"]), background) >= 4.5, row
        assert any(row["text"] == "PyTorch" for row in body), [row["text"] for row in body]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator(".rosetta-results").first.screenshot(path=str(SCREENSHOTS / f"phone-results-scrolled-{mode}.png"))
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, "the page itself scrolls sideways"
    assert watch.errors == [] and watch.outside == [], (watch.errors, watch.outside)
    context.close()


# ---- 3. side by side: whole lines ----------------------------------------------------------------

# Every block of code or output in the pairs, and every part band, that is wider than its box (a line
# cut off at the box's edge, or reachable only by scrolling sideways).
CUT = """() => [...document.querySelectorAll('.rosetta-pair pre, .rosetta-pair .rosetta-part')]
    .filter(e => e.checkVisibility() && e.scrollWidth > e.clientWidth + 1)
    .map(e => `${e.closest('section[id]').id}, ${e.closest('.rosetta-left') ? 'left' : 'right'}: ` +
              `${e.tagName.toLowerCase()} ${e.scrollWidth} px of lines in ${e.clientWidth} px`)"""


@pytest.mark.parametrize("width", [1300, 1920, 390])
def test_side_by_side_shows_every_line_whole(browser, server, width):
    """In half a screen a line with a comment at its end did not fit: it was cut at the box's edge, its
    end reachable only by a scroll bar that many systems hide. The lines wrap instead."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    watch = Watch(page, server)
    for pair in ("pytorch,keras", "tensorflow,mxnet", "chainer,jax"):
        page.goto(f"{server}/{CNN}?compare={pair}")
        page.wait_for_timeout(300)                            # the alignment runs after layout
        assert page.locator(".rosetta-pair").count() >= 5
        cut = page.evaluate(CUT)
        assert cut == [], f"{pair} at {width} px: lines cut off: {cut}"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#train").screenshot(path=str(SCREENSHOTS / f"side-by-side-train-{width}.png"))
    assert watch.errors == [] and watch.outside == [], (watch.errors, watch.outside)
    context.close()


# ---- 4. nothing published that no page uses -------------------------------------------------------

def test_the_site_publishes_no_source_maps_and_no_readme_screenshots(smoke_site):
    """The theme's source maps (1.9 MiB, for its developers' browser tools) and the README's screenshots
    were copied into the site; no page uses them. Nor does any file left still name one."""
    assert smoke_site["built"], smoke_site["log"][-3000:]
    site = smoke_site["output"]
    shipped = sorted(str(p.relative_to(site)) for p in site.rglob("*")
                     if p.is_file() and (p.suffix == ".map" or p.name.startswith("screenshot")
                                         or p.name == "webpack-macros.html"))
    assert shipped == [], shipped
    naming = sorted(str(p.relative_to(site)) for p in (site / "_static").rglob("*")
                    if p.is_file() and p.suffix in (".js", ".css", ".html")
                    and ("sourceMappingURL=" in (text := p.read_text(errors="replace"))
                         or "screenshot.png" in text or "screenshot-side-by-side" in text))
    assert naming == [], f"files naming one that is not published: {naming}"
    # A page may speak of screenshots, even name the README's (docs/building.md, docs/changes.md); what it must
    # not do is show or link one, since they are not published.
    pages = [p for p in site.rglob("*.html")
             if re.search(r"""(src|href|srcset)=["'][^"']*screenshot[^"']*["']""", p.read_text(errors="replace"))]
    assert pages == [], pages
