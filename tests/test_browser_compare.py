"""Side by side (docs/_static/rosetta-compare.js), as a reader uses it in Chromium: the switch, the pair
remembered across pages, the link that opens a pair, the parts paired line by line, phone width, and
the page without JavaScript."""
from __future__ import annotations

from browsing import SCREENSHOTS, Watch, browser_marks, chosen_tabs

pytestmark = browser_marks

CNN = "_gen/benchmarks/cnn_cifar10.html"

# What the pair view shows: per step, the two heads, whether the tabs are hidden, each side's code.
PAIRS = """() => [...document.querySelectorAll('.rosetta-pair')].map(pair => ({
    step: pair.closest('section').id,
    heads: [...pair.querySelectorAll('.rosetta-pair-head')].map(h => h.textContent.trim()),
    code: [...pair.querySelectorAll('.rosetta-pair-code')].map(c => c.innerText),
    rest: [...pair.querySelectorAll('.rosetta-pair-rest')].map(c => c.innerText),
    tabsHidden: getComputedStyle(pair.previousElementSibling).display === 'none',
}))"""


def side_by_side(page, left: str, right: str):
    bar = page.locator(".rosetta-compare-bar")
    bar.get_by_role("button", name="Side by side").click()
    bar.get_by_label("Left").select_option(label=left)
    bar.get_by_label("Right").select_option(label=right)


def test_side_by_side_shows_two_programs_per_step_with_their_outputs_and_remembers_the_pair(browser, server):
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    watch = Watch(page, server)
    page.goto(f"{server}/{CNN}")
    assert page.locator(".rosetta-pair").count() == 0, "tabs first"
    side_by_side(page, "Chainer", "MXNet")
    pairs = page.evaluate(PAIRS)
    steps = [p["step"] for p in pairs]
    assert steps[:5] == ["setup", "data", "model", "train", "infer"], steps
    for pair in pairs:
        assert pair["heads"] == ["Chainer", "MXNet"] and pair["tabsHidden"], pair
    train = pairs[3]
    assert "model.cleargrads()" in train["code"][0] and "autograd.record()" in train["code"][1]
    assert all("Step time:" in side for side in train["rest"]), "each side's output and time under its code"
    assert page.locator(".rosetta-compare-bar select").first.is_enabled()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "side-by-side-desktop.png"), full_page=False)

    # Picking the right side's framework on the left swaps the two.
    page.locator(".rosetta-compare-bar").get_by_label("Left").select_option(label="MXNet")
    assert page.evaluate(PAIRS)[0]["heads"] == ["MXNet", "Chainer"]

    page.reload()
    assert page.evaluate(PAIRS)[0]["heads"] == ["MXNet", "Chainer"], "kept after a reload"
    page.goto(f"{server}/_gen/benchmarks/gru_imdb.html")
    assert {tuple(p["heads"]) for p in page.evaluate(PAIRS)} == {("MXNet", "Chainer")}, \
        "kept on another benchmark page"
    page.goto(f"{server}/_gen/lessons/relu_after_pool.html")
    lesson = page.evaluate(PAIRS)
    assert lesson and all(p["heads"] == ["MXNet", "Chainer"] for p in lesson), "and on a lesson page"

    page.goto(f"{server}/{CNN}")
    page.locator(".rosetta-compare-bar").get_by_role("button", name="Tabs").click()
    assert page.locator(".rosetta-pair").count() == 0 and len(chosen_tabs(page)) >= 5, "back to tabs"
    page.reload()
    assert page.locator(".rosetta-pair").count() == 0, "the tab view is remembered too"
    assert watch.errors == [] and watch.outside == [], (watch.errors, watch.outside)
    context.close()


def test_a_link_opens_the_page_with_that_pair(browser, server):
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    watch = Watch(page, server)
    page.goto(f"{server}/{CNN}?compare=tensorflow,jax#train")
    pairs = page.evaluate(PAIRS)
    assert pairs and all(p["heads"] == ["TensorFlow", "JAX"] for p in pairs), pairs[:1]
    heading, bar = page.evaluate("[document.querySelector('#train h3').getBoundingClientRect().top, "
                                 "document.querySelector('.rosetta-compare-bar').getBoundingClientRect().bottom]")
    assert bar <= heading < bar + 60, f"the linked step's heading is in sight below the bar ({heading}, {bar})"
    link = page.locator(".rosetta-compare-bar a.rosetta-compare-link")
    assert link.is_visible() and link.get_attribute("href").endswith("cnn_cifar10.html?compare=tensorflow%2Cjax")
    # The step's own permalink keeps the pair.
    page.locator("#train h3").hover()                     # the theme shows the link on hover
    page.locator("#train a.headerlink").first.click()
    assert page.url.endswith("?compare=tensorflow,jax#train")
    # An unknown name in the link is ignored: the page opens as it would otherwise.
    fresh = browser.new_context(viewport={"width": 1300, "height": 900}).new_page()
    Watch(fresh, server)
    fresh.goto(f"{server}/{CNN}?compare=tensorflow,nosuch")
    assert fresh.locator(".rosetta-pair").count() == 0
    fresh.context.close()
    assert watch.errors == [] and watch.outside == [], (watch.errors, watch.outside)
    context.close()


PARTS = """() => {
    const pair = document.querySelector('#model .rosetta-pair');
    const side = cls => [...pair.querySelectorAll(`.${cls} .rosetta-part`)].map(b => ({
        parts: b.dataset.parts, top: Math.round(b.getBoundingClientRect().top),
        color: getComputedStyle(b).borderLeftColor}));
    const pre = pair.querySelector('.rosetta-left pre');
    return {left: side('rosetta-left'), right: side('rosetta-right'), codeWidth: pre.scrollWidth,
            bandWidth: pre.querySelector('.rosetta-part').getBoundingClientRect().width};
}"""


def test_the_lines_that_do_the_same_thing_sit_side_by_side_in_the_same_colour(browser, server):
    """The model step of PyTorch and Keras: each program's marks ([network], [loss], [optimizer]) become
    coloured bands; a part's band starts at the same height on both sides, in the same colour; hovering
    one lights up its partner."""
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    watch = Watch(page, server)
    page.goto(f"{server}/{CNN}?compare=pytorch,keras")
    page.wait_for_timeout(300)                            # the alignment runs after layout
    bands = page.evaluate(PARTS)
    left = {b["parts"]: b for b in bands["left"]}
    right = {b["parts"]: b for b in bands["right"]}
    assert len(bands["left"]) >= 2 and len(bands["right"]) >= 2, bands
    shared = set(left) & set(right)
    assert shared, bands
    for part in shared:
        assert abs(left[part]["top"] - right[part]["top"]) <= 1, (part, left[part], right[part])
        assert left[part]["color"] == right[part]["color"], part
    assert len({b["color"] for b in bands["left"]}) == len(left), "each part its own colour"
    assert bands["bandWidth"] >= bands["codeWidth"] - 40, "a band runs under the longest line (the code scrolls)"
    some = sorted(shared)[0]
    page.locator(f'#model .rosetta-left .rosetta-part[data-parts="{some}"]').first.hover()
    assert page.locator(f'#model .rosetta-right .rosetta-part-hot[data-parts="{some}"]').count() == 1
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#model").screenshot(path=str(SCREENSHOTS / "side-by-side-model-parts.png"))
    # Copying keeps the marks: the code copied is the program as written.
    assert "# [" in page.locator("#model .rosetta-left pre").first.inner_text()
    assert watch.errors == [] and watch.outside == [], (watch.errors, watch.outside)
    context.close()


def test_on_a_phone_the_two_programs_stack(browser, server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    page = context.new_page()
    watch = Watch(page, server)
    page.goto(f"{server}/{CNN}?compare=pytorch,keras")
    heads = page.locator("#train .rosetta-pair-head")
    left, right = heads.nth(0).bounding_box(), heads.nth(1).bounding_box()
    assert abs(left["x"] - right["x"]) < 2 and right["y"] > left["y"] + 100, (left, right)
    codes = page.locator("#train .rosetta-pair-code")
    assert codes.nth(0).bounding_box()["y"] < right["y"], "the left program whole, then the right one"
    right_edge = page.evaluate("Math.max(...[...document.querySelectorAll('.rosetta-pair')].map("
                               "p => p.getBoundingClientRect().right))")
    assert right_edge <= 391, f"the pairs reach {right_edge} px on a 390 px screen (their code scrolls)"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#train").evaluate("step => step.scrollIntoView()")      # the two programs, not the title
    page.wait_for_timeout(300)
    assert page.evaluate("document.querySelector('.rosetta-compare-bar').getBoundingClientRect().bottom") < 0, \
        "on a phone the bar scrolls away with the page (stuck, it would cover a quarter of the screen)"
    page.screenshot(path=str(SCREENSHOTS / "side-by-side-phone.png"))
    assert watch.errors == [] and watch.outside == [], (watch.errors, watch.outside)
    context.close()


def test_a_backend_chosen_in_the_side_by_side_view_is_the_tabs_choice(browser, server):
    """Keras' one program with a tab per backend: picking a backend in one step of the pair view picks
    it in every step, and in the tabs when the reader goes back."""
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    watch = Watch(page, server)
    page.goto(f"{server}/{CNN}?compare=keras,pytorch")
    page.locator("#train .rosetta-left label", has_text="JAX backend").click()
    checked = page.eval_on_selector_all(
        ".rosetta-pair .rosetta-left .sd-tab-set > input:checked + label", "ls => ls.map(l => l.textContent.trim())")
    assert checked and set(checked) == {"JAX backend"}, checked
    page.locator(".rosetta-compare-bar").get_by_role("button", name="Tabs").click()
    assert set(chosen_tabs(page, ".sd-tab-content .sd-tab-set")) == {"JAX backend"}
    assert watch.errors == [] and watch.outside == [], (watch.errors, watch.outside)
    context.close()


def test_without_javascript_the_tabs_are_the_page(browser, server):
    context = browser.new_context(viewport={"width": 1300, "height": 900}, java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{server}/{CNN}?compare=pytorch,keras")
    assert page.locator(".rosetta-compare-bar").count() == 0 and page.locator(".rosetta-pair").count() == 0
    train = page.locator("#train .sd-tab-content:visible").first.inner_text()
    assert "optimizer.step()" in train, "the first tab's program is readable"
    context.close()


def test_a_link_opens_the_page_with_a_tab_chosen(browser, server):
    """sphinx-design's own deep link (`?framework=<tab>`), which the README promises."""
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    watch = Watch(page, server)
    page.goto(f"{server}/{CNN}?framework=chainer")
    assert set(chosen_tabs(page)) == {"Chainer"}
    assert watch.errors == [] and watch.outside == [], (watch.errors, watch.outside)
    context.close()


# Each side's bands per step: the parts each band does.
BANDS = """() => Object.fromEntries([...document.querySelectorAll('.rosetta-pair')].map(pair => [
    pair.closest('section').id,
    ['rosetta-left', 'rosetta-right'].map(side => [...pair.querySelectorAll(`.${side} .rosetta-part`)]
        .map(b => b.dataset.parts))]))"""


def test_every_pair_of_programs_is_paired_part_by_part_on_every_benchmark_page(browser, server, project):
    """The tabs show each program's current code, with its part marks: side by side, every pair of programs
    (not only those whose executed notebook happened to be current) gets its coloured bands, and in every
    step whose parts are declared the two sides share at least one."""
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    watch = Watch(page, server)
    checked = 0
    for example in project.examples():
        url = f"{server}/_gen/benchmarks/{example.name}.html"
        page.goto(url)
        bar = page.locator(".rosetta-compare-bar")
        programs = bar.locator("select[data-side=left] option").evaluate_all("options => options.map(o => o.value)")
        assert len(programs) >= 2, example.name
        # The first pair by its link, the others as a reader picks them (one page load per example, not per pair).
        page.goto(f"{url}?compare={programs[0]},{programs[1]}")
        for index, left in enumerate(programs):
            for right in programs[index + 1:]:
                bar.get_by_label("Left").select_option(value=left)
                bar.get_by_label("Right").select_option(value=right)
                shown = bar.locator("select").evaluate_all("selects => selects.map(s => s.value)")
                assert shown == [left, right], (example.name, left, right, shown)
                bands = page.evaluate(BANDS)
                for step in example.parts:
                    lefts, rights = bands.get(step, [[], []])
                    assert lefts and rights, f"{example.name}: {left} vs {right}: no bands in {step}"
                    assert set(lefts) & set(rights), f"{example.name}: {left} vs {right}: nothing shared in {step}"
                checked += 1
    assert checked >= 3 * 21, checked
    assert watch.errors == [] and watch.outside == [], (watch.errors, watch.outside)
    context.close()
