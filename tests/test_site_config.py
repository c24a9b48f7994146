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
