"""Sphinx configuration of the site (source: docs/; pages under docs/_gen/ are generated)."""
project = "Deep-learning Rosetta Stone"
author = "the Rosetta Stone contributors"
copyright = "2026, the Rosetta Stone contributors"

extensions = ["myst_nb", "sphinx_design"]
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
# Tab stops for boxes that scroll once a tab shows them (the theme sets them only at load): see the file.
html_js_files = [("rosetta-focus.js", {"defer": "defer"})]
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
