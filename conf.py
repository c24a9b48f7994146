"""Sphinx configuration of the site (source: docs/; pages under docs/_gen/ are generated)."""
import shutil
import sys
from pathlib import Path

project = "Deep-learning Rosetta Stone"
author = "the Rosetta Stone contributors"
copyright = "2026, the Rosetta Stone contributors"

extensions = ["myst_nb", "sphinx_design", "sphinx.ext.graphviz"]
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

# Network diagrams (rosetta/diagrams.py): drawn at build time by the graphviz-pure package's dot, from the
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


def setup(app):
    from sphinx.ext.graphviz import graphviz
    app.add_node(graphviz, override=True, html=(_graphviz_with_a_text_alternative, None))
