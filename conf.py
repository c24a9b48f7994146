"""Sphinx configuration of the site (source: docs/; pages under docs/_gen/ are generated)."""
import os
import shutil
import sys
from pathlib import Path

project = "Deep-learning Rosetta Stone"
author = "the Rosetta Stone contributors"
copyright = "2026, the Rosetta Stone contributors"

extensions = ["myst_nb", "sphinx_design", "sphinx_copybutton", "notfound.extension", "sphinx.ext.graphviz"]
myst_enable_extensions = ["colon_fence"]
# Notebooks were executed by build_docs.py, each in its own framework's kernel: only render.
nb_execution_mode = "off"
nb_merge_streams = True
# Snippet copies are downloads, not pages; includes are pulled into other pages.
exclude_patterns = ["**/*.py", "**/.ipynb_checkpoints", "_build", "_gen/includes",
                    "_gen/lessons/notebooks"]   # downloads only: the lesson pages show their cells

html_theme = "pydata_sphinx_theme"
html_title = "Deep-learning Rosetta Stone"
html_static_path = ["docs/_static"]
html_css_files = ["rosetta.css"]
# The header's real height for the scroll padding (it wraps on a narrower desktop screen): see the file.
# Side by side: two programs next to each other, their parts paired (reads the step tabs; see the file).
# Tab stops for boxes that scroll once a tab shows them (the theme sets them only at load): see the file.
# The front page's matrix stacks into a block per framework on a phone, each cell under its column's name.
html_js_files = [("rosetta-header.js", {"defer": "defer"}), ("rosetta-compare.js", {"defer": "defer"}),
                 ("rosetta-focus.js", {"defer": "defer"}), ("rosetta-matrix.js", {"defer": "defer"})]
html_theme_options = {
    "header_links_before_dropdown": 6,
    "navigation_with_keys": False,
    "show_prev_next": False,
}
html_last_updated_fmt = None
html_show_sourcelink = False
# No left sidebar: the code tabs need the width, and the top bar already lists every page.
html_sidebars = {"**": []}
html_favicon = "docs/_static/favicon.svg"
# Without an explicit default the theme logs "invalid theme mode" on a first visit.
html_context = {"default_mode": "auto"}

# Copy buttons (sphinx-copybutton): never copy line numbers, nor the prompts and the output lines of
# an interactive session (Pygments' .gp/.go); in a block with prompts, only the prompted lines are copied.
copybutton_exclude = ".linenos, .gp, .go"
copybutton_prompt_text = r">>> |\.\.\. |\$ |In \[\d*\]: "
copybutton_prompt_is_regexp = True

# Sphinx's search indexes the code blocks too (Conv2d, GRU, hybridize); this ranks the benchmark pages,
# which hold every framework's code, above the one-framework notebook pages (see the file). Sphinx
# opens this path from the working directory, not from this folder: make it absolute.
html_search_scorer = os.path.join(os.path.dirname(os.path.abspath(__file__)), "docs", "search_scorer.js")

# The 404 page (sphinx-notfound-page) is served for any missing path, at any depth, so its links are
# absolute: they start with the path the site is published under ("/" locally; "/<repository>/" for
# a GitHub Pages project site, set by .github/workflows/site.yml).
_prefix = os.environ.get("ROSETTA_SITE_PREFIX", "/").strip("/")
notfound_urls_prefix = f"/{_prefix}/" if _prefix else "/"
notfound_context = {
    "title": "Page not found",
    "body": "<h1>Page not found</h1><p>Nothing is published at this address (a page may have moved). "
            f'Start from the <a href="{notfound_urls_prefix}index.html">front page</a>, the '
            f'<a href="{notfound_urls_prefix}_gen/benchmarks.html">benchmarks</a>, or search the site '
            "above.</p>",
}

# Network diagrams (rosetta/site/diagrams.py): drawn at build time by the graphviz-pure package's dot, from the
# build's own environment (no system Graphviz), as SVG files beside the pages (nothing fetched).
graphviz_dot = str(Path(sys.executable).parent / "graphviz-pure")
if not Path(graphviz_dot).exists():
    graphviz_dot = shutil.which("graphviz-pure") or ""
if not graphviz_dot:
    raise RuntimeError(f"graphviz-pure (dot) is not installed next to {sys.executable} nor on PATH: the benchmark "
                       "pages' network diagrams need it (it is in envs/docs.txt: pip install graphviz-pure)")
graphviz_output_format = "svg"


def _graphviz_with_a_text_alternative(translator, node):
    """Sphinx's own SVG rendering, whose <object> gets the diagram's alt text as its accessible name (its
    fallback paragraph is not one: axe-core's object-alt rule)."""
    from html import escape

    from sphinx.ext.graphviz import html_visit_graphviz
    start = len(translator.body)
    try:
        html_visit_graphviz(translator, node)
    finally:   # (it ends by raising SkipNode)
        label = escape(node.get("alt", ""), quote=True)
        translator.body[start:] = [part.replace("<object ", f'<object role="img" aria-label="{label}" ', 1)
                                   for part in translator.body[start:]]


# The theme's static files bring their source maps (1.9 MiB, for its developers' browser tools; no page
# loads them) and a template of its own build: neither is published. The compiled files' last line points
# at their map; it goes too, so that nothing in the site names a file it lacks.
_UNPUBLISHED = ("*.map", "webpack-macros.html")


def _drop_unpublished_static_files(app, exception):
    import re
    if exception is not None or app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    for pattern in _UNPUBLISHED:
        for path in static.rglob(pattern):
            path.unlink()
    comment = re.compile(r"\n?(?://# sourceMappingURL=\S+|/\*# sourceMappingURL=[^*\s]+\s*\*/)\s*$")
    for path in [*static.rglob("*.js"), *static.rglob("*.css")]:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        if "sourceMappingURL=" in text[-300:]:
            path.write_text(comment.sub("\n", text), encoding="utf-8", errors="surrogateescape")


def setup(app):
    from sphinx.ext.graphviz import graphviz
    app.add_node(graphviz, override=True, html=(_graphviz_with_a_text_alternative, None))
    app.connect("build-finished", _drop_unpublished_static_files)
