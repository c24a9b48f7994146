"""The comforts a documentation site owes its readers, checked in Debian's Chromium (Playwright):
a copy button on every code block, a 404 page that works at any depth and under a path prefix, a
search that finds API names in the code, a readable dark mode, tabs usable from the keyboard, a
header that fits a phone, and every page of the site offline without a console error.
"""
from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest
from browsing import SCREENSHOTS, Quiet, Watch, browser_marks, chosen_tabs, serve
from conftest import REPO

pytestmark = browser_marks
BENCHMARK = "_gen/benchmarks/cnn_cifar10.html"


def settled(page):
    """Wait for running CSS transitions (the tab labels fade their colour in over 250 ms)."""
    page.evaluate("() => Promise.all(document.getAnimations().map(a => a.finished))")


# WCAG contrast of an element's text (or outline) against the colour painted behind it: the first
# opaque background up its ancestors, with translucent ones blended over it.
CONTRAST = """([selector, property]) => {
    const parse = c => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
        const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
        return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
    const luminance = ([r, g, b]) => { const f = v => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
    const behind = el => { const layers = [];
        for (let n = el; n; n = n.parentElement) { const c = parse(getComputedStyle(n).backgroundColor);
            if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; } }
        let out = [255, 255, 255];
        for (const c of layers.reverse()) out = out.map((v, i) => c[i] * c[3] + v * (1 - c[3]));
        return out; };
    const ratio = el => {
        const [a, b] = [luminance(parse(getComputedStyle(el)[property])), luminance(behind(el))].sort((x, y) => y - x);
        return (a + 0.05) / (b + 0.05); };
    return [...document.querySelectorAll(selector)].filter(el => el.checkVisibility() && el.textContent.trim())
        .map(el => [Math.round(ratio(el) * 100) / 100, el.textContent.trim().slice(0, 40)]);
}"""


def contrasts(page, selector: str, prop: str = "color") -> list:
    return page.evaluate(CONTRAST, [selector, prop])


def luminance(rgb) -> float:
    def channel(v):
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(v) for v in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


# ---- 1. copy button ----------------------------------------------------------------------------

def test_every_code_block_has_a_copy_button_that_copies_its_code_and_no_prompt(browser, server):
    """sphinx-copybutton: a button on every code block; it copies the code as shown (the step's code,
    and its output, a `text` block), and from an interactive session only the commands, without the
    line numbers, prompts and printed lines."""
    context = browser.new_context(viewport={"width": 1300, "height": 900},
                                  permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    watch = Watch(page, server)
    page.goto(f"{server}/{BENCHMARK}")
    page.wait_for_load_state("networkidle")
    blocks = page.locator("div.highlight pre").count()
    assert blocks > 20 and page.locator("div.highlight button.copybtn").count() == blocks
    step = page.locator("#model .sd-tab-content:visible").first
    for kind in ("python", "text"):            # the code, then what it printed
        block = step.locator(f"div.highlight-{kind} div.highlight").first
        block.hover()
        block.locator("button.copybtn").click()
        copied = page.evaluate("navigator.clipboard.readText()")
        shown = block.locator("pre").evaluate("pre => pre.textContent")
        assert copied == shown.rstrip("\n") and copied.strip(), (kind, copied[:200])
    # No page of this site shows a session with prompts today: a block marked up the way Pygments
    # marks a Python session (and one with line numbers), copied through the page's own button code.
    page.evaluate("""() => {
        const add = (id, html) => document.querySelector('article').insertAdjacentHTML('beforeend',
            `<div class="highlight"><pre id="${id}">${html}</pre>` +
            `<button class="copybtn" data-clipboard-target="#${id}">copy</button></div>`);
        add('session', '<span class="gp">&gt;&gt;&gt; </span>import torch\\n' +
                       '<span class="gp">... </span>x = 1\\n<span class="go">2.5.1</span>\\n');
        add('shell', '$ make html\\nsite: _build/html/index.html\\n');
        add('numbered', '<span class="linenos">1</span>a = 1\\n<span class="linenos">2</span>b = 2\\n');
    }""")
    expected = {"session": "import torch\nx = 1", "shell": "make html", "numbered": "a = 1\nb = 2"}
    for block, text in expected.items():
        page.locator(f"#{block} + button.copybtn").click()
        assert page.evaluate("navigator.clipboard.readText()").rstrip("\n") == text, block
    assert watch.errors == [] and watch.outside == [], (watch.errors, watch.outside)
    context.close()


# ---- 2. the 404 page ---------------------------------------------------------------------------

def pages_handler(prefix: str = "/"):
    """A server like GitHub Pages: the site under `prefix`, and 404.html for any path it lacks."""
    class Pages(Quiet):
        def translate_path(self, path):
            if not path.startswith(prefix):
                return os.path.join(self.directory, "outside-the-prefix", "missing")
            return super().translate_path("/" + path[len(prefix):])

        def send_error(self, code, message=None, explain=None):
            if code != 404 or not (Path(self.directory) / "404.html").exists():
                return super().send_error(code, message, explain)
            body = (Path(self.directory) / "404.html").read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
    return Pages


def check_not_found_page(browser, base: str, prefix: str):
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    watch = Watch(page, base)
    failed = []
    page.on("response", lambda r: r.status >= 400 and failed.append(r.url))
    for missing in ("no-such-page.html", "no/such/deeper/page.html"):
        url = f"{base}{prefix}{missing}"
        failed.clear()
        watch.errors.clear()
        response = page.goto(url)
        page.wait_for_load_state("networkidle")
        assert response.status == 404 and page.title().startswith("Page not found")
        assert failed == [url], f"only the missing page itself may fail: {failed}"
        # The one console error is Chromium's own line about the document's 404.
        assert [e for e in watch.errors if "404" not in e] == [] and len(watch.errors) <= 1, watch.errors
        styled = page.evaluate("""() => getComputedStyle(document.documentElement)
            .getPropertyValue('--pst-color-primary').trim()
            && getComputedStyle(document.querySelector('.bd-header')).position""")
        assert styled == "sticky", "the theme's CSS did not load"
        links = page.eval_on_selector_all(".bd-header a[href], article a[href]", "as => as.map(a => a.href)")
        local = sorted({link.split("#")[0] for link in links if urlparse(link).netloc == urlparse(base).netloc})
        assert len(local) >= 5 and all(urlparse(link).path.startswith(prefix) for link in local), local
        for link in local:
            assert context.request.get(link).status == 200, link
    if prefix == "/":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "404.png"))
    assert watch.outside == [], watch.outside
    context.close()


def test_404_page_is_styled_and_its_links_work_at_any_depth(browser, smoke_site, server):
    base, httpd = serve(smoke_site["output"], pages_handler("/"))
    try:
        check_not_found_page(browser, base, "/")
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_404_page_works_under_the_prefix_of_a_github_pages_project_site(browser, server, tmp_path):
    """The hosted site lives under /<repository>/: ROSETTA_SITE_PREFIX (set by site.yml) makes the
    404 page's links start there. Sphinx again over the pages the smoke build wrote (about 10 s)."""
    output = tmp_path / "html"
    env = {**os.environ, "ROSETTA_SITE_PREFIX": "/rosetta-stone/"}
    run = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", "-c", str(REPO),
                          str(REPO / "docs"), str(output), "-d", str(tmp_path / "doctrees")],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    base, httpd = serve(output, pages_handler("/rosetta-stone/"))
    try:
        check_not_found_page(browser, base, "/rosetta-stone/")
    finally:
        httpd.shutdown()
        httpd.server_close()


# ---- 3. search ---------------------------------------------------------------------------------

def search(page, base: str, query: str) -> list[str]:
    page.goto(f"{base}/search.html?q={query}")
    page.wait_for_function("() => /found \\d+ page/.test(document.querySelector('#search-results')?.textContent)")
    return page.eval_on_selector_all("#search-results ul.search li > a",
                                     "as => as.map(a => new URL(a.href).pathname.slice(1))")


@pytest.mark.parametrize("name", ["Conv2d", "GRU", "hybridize"])
def test_search_finds_an_api_name_on_the_benchmark_pages_whose_code_uses_it(browser, server, name):
    """Sphinx indexes code blocks; docs/search_scorer.js lists the benchmark pages (every framework's
    code) before the one-framework notebooks, so the reader lands on the page comparing them."""
    context = browser.new_context()
    page = context.new_page()
    watch = Watch(page, server)
    uses = []                        # the benchmark pages whose code (any tab) contains the name
    for example in ("cnn_cifar10", "gru_imdb", "resnet50_features"):
        page.goto(f"{server}/_gen/benchmarks/{example}.html")
        if page.eval_on_selector_all("div.highlight pre", f"ps => ps.some(p => p.textContent.includes({name!r}))"):
            uses.append(f"_gen/benchmarks/{example}.html")
    assert uses, f"no benchmark page's code uses {name}"
    found = search(page, server, name)
    assert set(uses) <= set(found), (uses, found)
    notebooks = [i for i, path in enumerate(found) if path.startswith("_gen/notebooks/")]
    assert max(found.index(path) for path in uses) < min(notebooks, default=len(found)), \
        f"a one-framework notebook ranks above a benchmark page using {name}: {found[:12]}"
    assert found.index(uses[0]) <= 1, f"{name}: {found[:6]}"
    page.locator(f"#search-results ul.search li > a[href^='{uses[0]}']").first.click()
    page.wait_for_load_state("load")
    assert urlparse(page.url).path == f"/{uses[0]}"
    assert page.eval_on_selector_all("div.highlight pre", f"ps => ps.some(p => p.textContent.includes({name!r}))")
    assert watch.errors == [] and watch.outside == [], (watch.errors, watch.outside)
    context.close()


# ---- 4. dark mode ------------------------------------------------------------------------------

def test_dark_mode_keeps_tabs_code_tables_notes_and_charts_readable(browser, server):
    """The theme's dark mode (the reader's choice, kept in localStorage "mode"): text contrast of at
    least 4.5:1 (WCAG AA) for the tab labels, the code, a step's output, the results table and the
    notes; the charts (matplotlib PNGs drawn on white) keep a light card behind them."""
    from PIL import Image
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    context.add_init_script("localStorage.setItem('mode', 'dark')")
    page = context.new_page()
    watch = Watch(page, server)
    page.goto(f"{server}/{BENCHMARK}")
    page.wait_for_load_state("networkidle")
    settled(page)
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert luminance([int(v) for v in background[4:-1].split(",")]) < 0.05, background
    for selector in [".sd-tab-set > label", "#model .sd-tab-content div.highlight pre span",
                     "#model .sd-tab-content div.highlight-text pre", ".rosetta-step-time",
                     ".rosetta-results td", ".rosetta-results th", ".admonition p", ".admonition-title"]:
        measured = contrasts(page, selector)
        assert measured, f"nothing visible matches {selector}"
        low = [m for m in measured if m[0] < 4.5]
        assert low == [], f"{selector}: contrast under 4.5:1 in dark mode: {low[:5]}"
    charts = page.locator("article img")
    assert charts.count() >= 1
    for i in range(charts.count()):
        shot = Image.open(io.BytesIO(charts.nth(i).screenshot())).convert("RGB")
        w, h = shot.size
        # Its left and right margins, in the middle (the sticky header may cover its top).
        edge = [shot.getpixel((x, y)) for x in (1, w - 2) for y in range(h // 4, 3 * h // 4, 5)]
        card = sum(luminance(p) for p in edge) / len(edge)
        assert card > 0.5, f"chart {i}: its edge is dark ({card:.2f}): no light card behind it"
        darkest = min(luminance(shot.getpixel((x, y))) for x in range(0, w, 3) for y in range(0, h, 3))
        assert (card + 0.05) / (darkest + 0.05) > 7, "the chart's text lost its contrast"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "dark-benchmark.png"))
    page.locator("#train").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "dark-benchmark-train.png"))
    charts.first.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "dark-benchmark-chart.png"))
    assert watch.errors == [] and watch.outside == [], (watch.errors, watch.outside)
    context.close()


# ---- 5. keyboard -------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["light", "dark"])
def test_keyboard_alone_reaches_a_step_shows_the_focus_and_switches_framework(browser, server, mode):
    """Tab reaches a step's tab set (its radio inputs are hidden: the label shows the focus ring, the
    theme's 3 px accent outline, at 3:1 against the page at least); the arrow keys switch the
    framework, and every step follows."""
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    context.add_init_script(f"localStorage.setItem('mode', '{mode}')")
    page = context.new_page()
    watch = Watch(page, server)
    page.goto(f"{server}/{BENCHMARK}")
    page.wait_for_load_state("networkidle")
    assert set(chosen_tabs(page)) == {"PyTorch"}
    for _ in range(150):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.matches('#model .sd-tab-set > input')"):
            break
    else:
        pytest.fail("150 presses of Tab never reached the model step's tabs")
    settled(page)
    ring = page.evaluate("""() => { const s = getComputedStyle(document.activeElement.nextElementSibling);
                                    return [s.outlineStyle, parseFloat(s.outlineWidth)]; }""")
    assert ring[0] == "solid" and ring[1] >= 2, f"no visible focus ring on the focused tab's label: {ring}"
    outline = contrasts(page, "#model .sd-tab-set > input:focus-visible + label", "outlineColor")
    assert len(outline) == 1 and outline[0][0] >= 3, f"the focus ring does not stand out: {outline}"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    box = page.locator("#model .sd-tab-set").first.bounding_box()     # the labels, and the ring around them
    page.screenshot(path=str(SCREENSHOTS / f"keyboard-focus-{mode}.png"),
                    clip={"x": box["x"] - 12, "y": box["y"] - 12, "width": box["width"] + 24, "height": 140})
    page.keyboard.press("ArrowRight")
    assert chosen_tabs(page) == ["Keras 3"] * (5 + 1), "the arrow key switches the framework of every step"
    page.keyboard.press("ArrowRight")
    assert chosen_tabs(page) == ["TensorFlow"] * (5 + 1)
    assert "tf.nn.conv2d" in page.locator("#model .sd-tab-content:visible").first.inner_text()
    assert page.evaluate("() => document.activeElement.matches('#model .sd-tab-set > input:focus-visible')")
    assert watch.errors == [] and watch.outside == [], (watch.errors, watch.outside)
    context.close()


# ---- 6. phone header ---------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["index.html", BENCHMARK])
def test_header_fits_a_phone_screen(browser, server, path):
    """At 390 px (and 320 px) every element of the header stays within the screen: the site's title
    wraps instead of pushing the "on this page" button off the edge."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    page = context.new_page()
    watch = Watch(page, server)
    for width in (390, 320):
        page.set_viewport_size({"width": width, "height": 844})
        page.goto(f"{server}/{path}")
        outside = page.evaluate("""() => [...document.querySelectorAll('.bd-header *')]
            .filter(el => el.checkVisibility())
            .map(el => [el.tagName + '.' + el.className, el.getBoundingClientRect()])
            .filter(([, r]) => r.width && (r.left < 0 || r.right > document.documentElement.clientWidth + 0.5))
            .map(([name, r]) => `${name}: ${Math.round(r.left)}..${Math.round(r.right)}`)""")
        assert outside == [], f"{path} at {width} px: header elements outside the screen: {outside}"
        assert page.evaluate("document.documentElement.scrollWidth") <= width, "the page scrolls sideways"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server}/{path}")
    page.screenshot(path=str(SCREENSHOTS / f"phone-header-{Path(path).stem}.png"),
                    clip={"x": 0, "y": 0, "width": 390, "height": 300})
    assert watch.errors == [], watch.errors
    context.close()


# ---- 7. every page -----------------------------------------------------------------------------

def test_every_page_loads_offline_without_console_errors(browser, smoke_site, server):
    """Every HTML page the build wrote (not _static/, whose one .html is the theme's Jinja macro
    file), in one browser page: status 200, no console error, no request leaving the site."""
    root = smoke_site["output"]
    paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.html")
                   if p.relative_to(root).parts[0] != "_static")
    assert len(paths) >= 50, f"only {len(paths)} pages: not the whole site"
    context = browser.new_context()
    page = context.new_page()
    watch = Watch(page, server)
    problems, started = {}, time.perf_counter()
    for path in paths:
        watch.errors.clear()
        watch.outside.clear()
        response = page.goto(urljoin(server + "/", path), wait_until="load")
        # A moment for what runs after the load event (the tab sync, the copy buttons, the theme).
        page.evaluate("() => new Promise(done => setTimeout(done, 50))")
        if response.status != 200 or watch.errors or watch.outside:
            problems[path] = (response.status, watch.errors[:3], watch.outside[:3])
    took = time.perf_counter() - started
    context.close()
    print(f"{len(paths)} pages in {took:.1f} s")
    assert problems == {}, f"{len(problems)} of {len(paths)} pages: {problems}"
