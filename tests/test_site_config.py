"""conf.py's comforts, without a browser: the 404 page's links follow the path the site is published
under (ROSETTA_SITE_PREFIX), and the publish workflow sets it from GitHub Pages' own answer.
The browser checks are in test_browser_comforts.py."""
from __future__ import annotations

import re
import runpy

import pytest
import yaml
from conftest import REPO


def conf(monkeypatch, prefix: str | None) -> dict:
    if prefix is None:
        monkeypatch.delenv("ROSETTA_SITE_PREFIX", raising=False)
    else:
        monkeypatch.setenv("ROSETTA_SITE_PREFIX", prefix)
    return runpy.run_path(str(REPO / "conf.py"))


@pytest.mark.parametrize(("prefix", "expected"), [(None, "/"), ("/", "/"), ("/rosetta-stone/", "/rosetta-stone/"),
                                                  ("/rosetta-stone", "/rosetta-stone/"), ("a/b", "/a/b/")])
def test_the_404_page_links_start_with_the_site_prefix(monkeypatch, prefix, expected):
    settings = conf(monkeypatch, prefix)
    assert settings["notfound_urls_prefix"] == expected
    assert f'href="{expected}index.html"' in settings["notfound_context"]["body"]


def test_the_comfort_extensions_and_the_search_scorer_are_configured(monkeypatch):
    settings = conf(monkeypatch, None)
    assert {"sphinx_copybutton", "notfound.extension"} <= set(settings["extensions"])
    assert (REPO / settings["html_search_scorer"]).is_file()
    assert ".linenos" in settings["copybutton_exclude"]


def test_the_publish_job_builds_with_the_pages_base_path():
    """configure-pages answers the site's base path ("/<repository>" for a project site, "" under a
    custom domain); the step that builds the site turns it into ROSETTA_SITE_PREFIX."""
    steps = yaml.safe_load((REPO / ".github" / "workflows" / "site.yml").read_text())["jobs"]["publish"]["steps"]
    pages = next(step for step in steps if step.get("uses", "").startswith("actions/configure-pages@"))
    build = next(step for step in steps if "make publish" in step.get("run", ""))
    assert build["env"]["ROSETTA_SITE_PREFIX"] == "${{ steps." + pages["id"] + ".outputs.base_path }}/"


def test_the_site_stylesheet_has_balanced_blocks():
    """A rule block left open (a merge that lost a closing brace did) silently swallows every rule after
    it into an @media block or a selector: the browser reports nothing, the later rules just never apply."""
    text = re.sub(r"/\*.*?\*/", "", (REPO / "docs" / "_static" / "rosetta.css").read_text(), flags=re.S)
    depth = 0
    for number, line in enumerate(text.splitlines(), 1):
        depth += line.count("{") - line.count("}")
        assert 0 <= depth <= 2, f"rosetta.css line {number}: block depth {depth}"
    assert depth == 0, "rosetta.css ends inside an open block"


def test_the_readme_screenshots_exist_outside_the_sites_static_files(monkeypatch):
    """The README's screenshots are for the repository's front page: kept out of html_static_path, which
    Sphinx copies whole into the site (no page shows them)."""
    settings = conf(monkeypatch, None)
    images = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", (REPO / "README.md").read_text())
    assert len(images) >= 2, images
    static = [(REPO / folder).resolve() for folder in settings["html_static_path"]]
    for image in images:
        path = (REPO / image).resolve()
        assert path.is_file(), f"README.md shows {image}, which is not in the repository"
        assert not any(path.is_relative_to(folder) for folder in static), f"{image} would be published"


def test_the_build_drops_the_themes_source_maps_and_their_mentions(monkeypatch, tmp_path):
    """The hook run when Sphinx has written the site: the theme's *.map files (and its webpack template)
    go, and the compiled files no longer name their map; a failed build is left as it is."""
    settings = conf(monkeypatch, None)
    scripts, styles = tmp_path / "_static" / "scripts", tmp_path / "_static" / "styles"
    scripts.mkdir(parents=True)
    styles.mkdir()
    (scripts / "theme.js").write_text("window.x=1;\n//# sourceMappingURL=theme.js.map")
    (scripts / "theme.js.map").write_text("{}")
    (styles / "theme.css").write_text("a{color:red}\n/*# sourceMappingURL=theme.css.map*/")
    (styles / "theme.css.map").write_text("{}")
    (tmp_path / "_static" / "webpack-macros.html").write_text("{% macro x() %}{% endmacro %}")
    (tmp_path / "_static" / "rosetta.js").write_text("const sourceMappingURL = 1;\nrun();\n")

    class Builder:
        format = "html"

    class App:
        outdir, builder = str(tmp_path), Builder()

    settings["_drop_unpublished_static_files"](App(), RuntimeError("failed"))
    assert (scripts / "theme.js.map").exists(), "a failed build is left for its reader"
    settings["_drop_unpublished_static_files"](App(), None)
    left = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert left == ["_static/rosetta.js", "_static/scripts/theme.js", "_static/styles/theme.css"], left
    assert (scripts / "theme.js").read_text() == "window.x=1;\n"
    assert (styles / "theme.css").read_text() == "a{color:red}\n"
    assert (tmp_path / "_static" / "rosetta.js").read_text() == "const sourceMappingURL = 1;\nrun();\n"
