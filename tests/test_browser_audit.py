"""Checked like a reader would, in Chromium: an accessibility audit with axe-core, the weight of a
benchmark page on a first visit, and the CNN page at desktop and phone width (screenshots to look at,
and the layout checks that looking at them led to).

axe-core is the copy that axe-playwright-python bundles (`axe.min.js`, injected into the page: nothing
is fetched). Skips only when Debian's chromium is not installed (.ci/run installs it).
"""
from __future__ import annotations

import gzip

import pytest
from browsing import SCREENSHOTS, Watch, browser_marks

pytestmark = browser_marks

BENCHMARKS = ["cnn_cifar10", "gru_imdb", "resnet50_features"]
AUDITED = [*(f"_gen/benchmarks/{name}.html" for name in BENCHMARKS), "_gen/lessons/relu_after_pool.html",
           "index.html", "_gen/frameworks.html", "_gen/frameworks/chainer.html", "_gen/environments.html",
           "_gen/guide.html", "_gen/benchmarks.html", "_gen/lessons.html", "methodology.html",
           "_gen/conversions/resnet50_features.html"]
BLOCKING = {"serious", "critical"}

# What a reader finds behind the tabs and the closed dropdowns, shown all at once so that one run of axe
# sees every framework's code and output (a tab shown later must be as accessible as the first one).
REVEAL = """() => {
    document.querySelectorAll('details').forEach(d => d.open = true);
    const style = document.createElement('style');
    style.textContent = '.sd-tab-content { display: block !important; }';
    document.head.append(style);
}"""


def axe_violations(page, contrast: bool = True) -> list[dict]:
    from axe_playwright_python.sync_playwright import Axe
    # No preload: axe would fetch the stylesheets again itself, and resolves their @import against the
    # site root (a 404 for /basic.css); its one rule that needs them (css-orientation-lock) is left out.
    options = {"resultTypes": ["violations"], "preload": False}
    if not contrast:        # (the costliest rule: 4.4 of axe's 5.0 s on the CNN page as loaded)
        options["rules"] = {"color-contrast": {"enabled": False}}
    return Axe().run(page, options=options).response["violations"]


def describe(violation: dict, where: str) -> str:
    """Rule, impact, how many nodes, and the first few (selector and HTML) for the failure message."""
    nodes = "".join(f"\n      {' '.join(map(str, n['target']))}: {n['html'][:160]}" for n in violation["nodes"][:3])
    count = len(violation["nodes"])
    return f"  {where}: {violation['id']} ({violation['impact']}, {count} nodes: {violation['help']}){nodes}"


@pytest.mark.parametrize("path", AUDITED)
def test_no_serious_or_critical_accessibility_violations_in_light_and_dark_mode(browser, server, path, capsys):
    """axe-core's rules (WCAG 2.x A/AA and best practices) on the page as it loads, then with every tab's
    content and every dropdown shown, in light mode; in dark mode (the theme follows the reader's system
    setting) with everything shown, which holds all that loads visible as well: what dark mode changes is
    colours, and the shown state has every element whose colours are checked. For the same reason the
    colours' contrast is checked in the shown states only (as loaded, every other rule). Serious and critical
    violations fail; the others are printed for the log."""
    blocking, others = [], []
    for mode in ("light", "dark"):
        context = browser.new_context(viewport={"width": 1300, "height": 900}, color_scheme=mode)
        page = context.new_page()
        watch = Watch(page, server)
        page.goto(f"{server}/{path}")
        page.wait_for_load_state("networkidle")
        assert page.evaluate("document.documentElement.dataset.theme") == mode, "the theme follows the system"
        hidden = page.evaluate("document.querySelectorAll('.sd-tab-content, details:not([open])').length")
        states = ("as loaded", "every tab shown") if mode == "light" else ("every tab shown",)
        for state in states if hidden else ("as loaded",):
            if state == "every tab shown":
                page.evaluate(REVEAL)
                page.wait_for_timeout(400)       # the theme's tab stops are set after a 300 ms debounce
            for violation in axe_violations(page, contrast=state == "every tab shown" or not hidden):
                found = blocking if violation["impact"] in BLOCKING else others
                found.append(describe(violation, f"{mode}, {state}"))
        assert watch.errors == [] and watch.outside == [], (watch.errors, watch.outside)
        context.close()
    if others:
        with capsys.disabled():          # in the log even when the test passes
            print(f"\n{path}: minor or moderate accessibility findings:\n" + "\n".join(others))
    assert not blocking, f"{path}: serious or critical accessibility violations:\n" + "\n".join(blocking)


def test_code_shown_by_any_tab_can_be_scrolled_with_the_keyboard(browser, server):
    """A code block wider than its box scrolls; a keyboard reader reaches it with Tab and scrolls it with
    the arrow keys. The theme gives such boxes a tab stop when the page loads, but a tab chosen later
    shows code that was hidden then (axe: scrollable-region-focusable, serious)."""
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    watch = Watch(page, server)
    page.goto(f"{server}/_gen/benchmarks/cnn_cifar10.html")
    page.wait_for_load_state("networkidle")
    unreachable = """() => [...document.querySelectorAll('pre, .pst-scrollable-table-container')]
        .filter(e => e.offsetParent && e.scrollWidth > e.clientWidth && e.tabIndex < 0)
        .map(e => (e.closest('section[id]') || {}).id + ': ' + e.textContent.trim().slice(0, 50))"""
    labels = page.eval_on_selector_all("#model .sd-tab-set > label", "ls => ls.map(l => l.textContent.trim())")
    checked = 0
    for label in labels:
        page.locator("#model .sd-tab-set > label", has_text=label).first.click()
        page.wait_for_timeout(400)
        assert page.evaluate(unreachable) == [], f"with {label} chosen, boxes that scroll but take no focus"
        checked += page.evaluate("() => [...document.querySelectorAll('pre')].filter("
                                 "e => e.offsetParent && e.scrollWidth > e.clientWidth).length")
    assert checked, "no code block wider than its box: nothing was checked"
    # The last framework's widest code block, focused: the arrow keys scroll it.
    code = page.locator("pre:visible").nth(page.locator("pre:visible").evaluate_all(
        "ps => ps.findIndex(p => p.scrollWidth > p.clientWidth)"))
    code.focus()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.wait_for_timeout(600)       # (the browser scrolls smoothly)
    assert code.evaluate("p => p.scrollLeft") > 0, "the focused code block scrolls with the arrow keys"
    assert watch.errors == [], watch.errors
    context.close()


# A first visit to a page: everything the browser fetches, compressed as a host serves it (GitHub Pages
# sends gzip). Measured on the smoke site (issue 13): the CNN page 400 KiB in 29 requests, of which the
# page itself 35 KiB; the theme's icon font (112 KiB), CSS and scripts are most of it.
FIRST_VISIT_BUDGET_KIB = 600
OWN_HTML_BUDGET_KIB = 80


@pytest.mark.parametrize("path", ["_gen/benchmarks/cnn_cifar10.html", "_gen/benchmarks/resnet50_features.html",
                                  "index.html"])
def test_a_first_visit_stays_within_its_weight_budget(browser, server, path, capsys):
    """What a first visit downloads, gzip-compressed: within the budget, the page's own HTML too (its code
    tabs, outputs and tables are inline); the heaviest files are printed for the log."""
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    responses = []
    page.on("response", lambda response: responses.append(response))
    page.goto(f"{server}/{path}")
    page.wait_for_load_state("networkidle")
    sizes = {r.url.removeprefix(server): len(gzip.compress(r.body())) / 1024 for r in responses if r.ok}
    context.close()
    total, own = sum(sizes.values()), sizes[f"/{path}"]
    heaviest = sorted(sizes.items(), key=lambda item: -item[1])[:5]
    with capsys.disabled():
        print(f"\n{path}: {total:.0f} KiB gzip in {len(sizes)} requests (page {own:.0f} KiB); heaviest: "
              + ", ".join(f"{name.split('?')[0].rsplit('/', 1)[-1]} {kib:.0f}" for name, kib in heaviest))
    assert total <= FIRST_VISIT_BUDGET_KIB, f"{path}: {total:.0f} KiB on a first visit, budget {FIRST_VISIT_BUDGET_KIB}"
    assert own <= OWN_HTML_BUDGET_KIB, f"{path}: the page itself is {own:.0f} KiB, budget {OWN_HTML_BUDGET_KIB}"


OVERFLOWING = """() => [...document.querySelectorAll('.bd-article *')]
    .filter(e => e.offsetParent && e.getBoundingClientRect().right > innerWidth + 1
                 && !e.closest('pre, .pst-scrollable-table-container, figure.rosetta-chart, .rosetta-results, '
                               + '.sd-tab-set > label, .rosetta-pair, .table-wrapper, .highlight, '
                               + '.graphviz, object, .output'))
    .map(e => e.tagName + '.' + e.className + ': ' + (e.textContent || '').trim().slice(0, 40))"""


@pytest.mark.parametrize("width,mode", [(1300, "light"), (1300, "dark"), (390, "light"), (390, "dark")])
def test_the_cnn_page_at_desktop_and_phone_width(browser, server, width, mode):
    """The page a reader lands on, as screenshots to look at (_build/screenshots/audit-*), and what looking
    at them led to: nothing outside a scrolling box runs past the screen's right edge (long names and
    file names wrap), and each chart keeps text a reader can read (at least 2/3 of its drawn size)."""
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=mode)
    page = context.new_page()
    watch = Watch(page, server)
    page.goto(f"{server}/_gen/benchmarks/cnn_cifar10.html")
    page.wait_for_load_state("networkidle")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"audit-cnn-{width}px-{mode}.png"), full_page=True)
    for details in page.locator("details").all():
        details.evaluate("d => d.open = true")
    assert page.evaluate(OVERFLOWING) == [], f"at {width}px, past the right edge outside a scrolling box"
    scales = page.eval_on_selector_all("figure.rosetta-chart img",
                                       "imgs => imgs.map(i => i.getBoundingClientRect().width / i.naturalWidth)")
    assert scales, "no chart on the CNN page"
    assert min(scales) >= 0.3, f"charts drawn at {min(scales):.2f} of their size: text too small"
    assert watch.errors == [] and watch.outside == [], (watch.errors, watch.outside)
    context.close()
