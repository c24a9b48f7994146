"""What a reader clicks, in headless Chromium (Debian's) driven by Playwright.

Skips only when Debian's chromium is not installed (.ci/run installs it): say so loudly.
"""
from __future__ import annotations

import pytest
from browsing import SCREENSHOTS, Watch, browser_marks, chosen_tabs

pytestmark = browser_marks

# A benchmark page's framework tab sets: one per step, and the "Whole programs" downloads at its end.
CNN_SETS, GRU_SETS, RESNET_SETS = 5 + 1, 5 + 1, 4 + 1


def test_keras_shows_its_program_once_and_each_backend_in_a_tab_of_its_own(browser, server):
    """One Keras tab for three rows: the code once; under it, a tab per backend with that run's output
    and time. Both choices follow every step and are remembered on the other pages."""
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    watch = Watch(page, server)
    page.goto(f"{server}/_gen/benchmarks/cnn_cifar10.html")
    page.locator("#model .sd-tab-set label", has_text="Keras 3").first.click()
    assert chosen_tabs(page) == ["Keras 3"] * CNN_SETS
    nested = ".sd-tab-content .sd-tab-set"
    assert set(chosen_tabs(page, nested)) == {"TensorFlow backend"}, "first visit: the first backend"
    page.locator("#train .sd-tab-content:visible label", has_text="JAX backend").click()
    assert chosen_tabs(page, nested) == ["JAX backend"] * 5, "one click switches the backend of every step"
    train = page.locator("#train .sd-tab-content:visible").first.inner_text()
    assert train.count("model.fit(") == 1, "the program's code is shown once"
    assert "ran 3 times" in train and "Step time:" in train
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#train").screenshot(path=str(SCREENSHOTS / "train-step-keras-jax.png"))
    page.goto(f"{server}/_gen/benchmarks/gru_imdb.html")
    assert chosen_tabs(page) == ["Keras 3"] * GRU_SETS and chosen_tabs(page, nested) == ["JAX backend"] * 5
    page.goto(f"{server}/_gen/lessons/relu_after_pool.html")        # its Keras script is keras.py: all three rows
    assert chosen_tabs(page) == ["Keras 3"] * 3, "a lesson's Keras program follows the Keras tab"
    assert chosen_tabs(page, nested) == ["JAX backend"] * 3, "and its backend tabs the backend chosen"
    page.goto(f"{server}/_gen/lessons/momentum.html")               # a script for Keras on TensorFlow only
    assert chosen_tabs(page) == ["Keras 3 · TensorFlow"] * 3, "a lesson's one Keras row follows the Keras tab"
    assert watch.errors == [] and watch.outside == [], (watch.errors, watch.outside)
    context.close()


def test_choice_syncs_every_step_and_is_remembered_across_pages(browser, server):
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    watch = Watch(page, server)
    page.goto(f"{server}/_gen/benchmarks/cnn_cifar10.html")
    assert set(chosen_tabs(page)) == {"PyTorch"}, "first visit: the first framework"
    page.locator("#model .sd-tab-set label", has_text="Chainer").click()
    assert chosen_tabs(page) == ["Chainer"] * CNN_SETS, "one click switches every step"
    visible = page.locator("#train .sd-tab-content:visible")
    assert "model.cleargrads()" in visible.inner_text() and "Step time:" in visible.inner_text()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#model").screenshot(path=str(SCREENSHOTS / "model-step-chainer.png"))

    page.reload()
    assert chosen_tabs(page) == ["Chainer"] * CNN_SETS, "kept after a reload"
    page.goto(f"{server}/_gen/benchmarks/resnet50_features.html")
    assert chosen_tabs(page) == ["Chainer"] * RESNET_SETS, "kept on another benchmark page"
    page.goto(f"{server}/_gen/environments.html")
    assert chosen_tabs(page) == ["Chainer"], "kept on the environments page"
    page.goto(f"{server}/_gen/lessons/relu_after_pool.html")
    assert chosen_tabs(page) == ["Chainer"] * 3, "kept on a lesson page: its setup, variants and measure steps"
    second = context.new_page()                       # a later visit, same browser profile
    Watch(second, server)
    second.goto(f"{server}/_gen/benchmarks/cnn_cifar10.html")
    assert set(chosen_tabs(second)) == {"Chainer"}
    assert watch.errors == [], watch.errors
    assert watch.outside == [], f"requests left the site: {watch.outside}"
    context.close()


@pytest.mark.parametrize("path", ["index.html", "_gen/benchmarks/cnn_cifar10.html", "_gen/benchmarks/gru_imdb.html",
                                  "_gen/benchmarks/resnet50_features.html", "_gen/benchmarks.html",
                                  "_gen/notebooks/cnn_cifar10/mxnet.html", "_gen/frameworks/chainer.html",
                                  "methodology.html", "_gen/environments.html", "_gen/lessons.html",
                                  "_gen/lessons/relu_after_pool.html", "_gen/lessons/cudnn_autotune.html",
                                  "_gen/conversions.html", "_gen/conversions/cnn_cifar10.html"])
def test_pages_load_offline_without_console_errors(browser, server, path):
    context = browser.new_context()
    page = context.new_page()
    watch = Watch(page, server)
    response = page.goto(f"{server}/{path}")
    page.wait_for_load_state("networkidle")
    assert response.status == 200
    assert watch.errors == [], watch.errors
    assert watch.outside == [], f"requests left the site: {watch.outside}"
    context.close()


TABLE_LAYOUT = """() => {
    const box = document.querySelector('.rosetta-results');
    const table = box.querySelector('table');
    // Squeezed: a cell whose text wraps in a column narrower than about a dozen characters.
    const rem = parseFloat(getComputedStyle(document.documentElement).fontSize);
    const lines = cell => {          // the lines of its text (a cell is as tall as its row)
        const bottoms = new Set(), walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const range = document.createRange();
            range.selectNodeContents(node);
            for (const rect of range.getClientRects()) if (rect.width) bottoms.add(Math.round(rect.bottom));
        }
        return bottoms.size;
    };
    // Body cells: a value broken over lines in a narrow column; headings may wrap, in columns kept wide.
    const wrapped = [...table.querySelectorAll('td')].filter(
        cell => cell.textContent.trim() && lines(cell) > 1 && cell.clientWidth < 7.5 * rem
    ).concat([...table.querySelectorAll('th')].filter(cell => cell.clientWidth < 5.5 * rem)
    ).map(cell => cell.textContent.trim());
    const machines = new Set([...table.querySelectorAll('tbody tr')].map(row => row.cells[2].textContent.trim()));
    // The box that scrolls: ours, or the theme's wrapper around the table inside it.
    let scrolls = false;
    for (let node = table.parentElement; node && node !== box.parentElement; node = node.parentElement) {
        scrolls = scrolls || (['auto', 'scroll'].includes(getComputedStyle(node).overflowX)
                              && node.scrollWidth > node.clientWidth + 1);
    }
    const article = document.querySelector('.bd-article-container').getBoundingClientRect();
    return {wrapped, machines: [...machines], rows: table.querySelectorAll('tbody tr').length,
            tableScrolls: scrolls, tableWidth: table.scrollWidth,
            articleRight: article.right, viewport: window.innerWidth};
}"""


@pytest.mark.parametrize("width", [1300, 390])
@pytest.mark.parametrize("example", ["cnn_cifar10", "gru_imdb"])
def test_results_tables_keep_each_cell_on_one_line_at_desktop_and_phone_width(browser, server, width, example):
    """The results table has a row per framework and machine: here this build's smoke rows beside the
    reference results kept in benchmarks/reference (two machines or profiles per framework). At desktop
    and phone width no cell is squeezed to a word or two per line (two column groups used to do that to
    the GRU table): values stay on one line, headings keep a reading width; where the table is wider
    than the screen it scrolls in its own box, and the article itself stays within the screen."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    watch = Watch(page, server)
    page.goto(f"{server}/_gen/benchmarks/{example}.html")
    layout = page.evaluate(TABLE_LAYOUT)
    assert len(layout["machines"]) >= 2, f"rows of at least two machines or profiles: {layout['machines']}"
    assert layout["wrapped"] == [], f"cells squeezed at {width} px: {layout['wrapped'][:8]}"
    assert layout["articleRight"] <= layout["viewport"] + 1, "the article is wider than the screen"
    if width < 500:
        assert layout["tableScrolls"], "on a phone the table scrolls in its own box"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator(".rosetta-results").screenshot(path=str(SCREENSHOTS / f"results-{example}-{width}px.png"))
    assert watch.errors == [], watch.errors
    context.close()
