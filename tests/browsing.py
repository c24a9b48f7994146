"""What the browser tests share: Debian's Chromium, a server for a built site, and a watch on each page.

The fixtures (`server`, `browser`) are in conftest.py; every browser test module imports `Watch`,
`SCREENSHOTS` and `browser_marks` from here.
"""
from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
SCREENSHOTS = Path(__file__).resolve().parent.parent / "_build" / "screenshots"

# Skipped (and said so in the summary) only on a developer's machine without Debian's chromium;
# under CI (.ci/run installs it) a missing browser fails instead.
browser_marks = [pytest.mark.browser, pytest.mark.envs,
                 pytest.mark.skipif(not Path(CHROMIUM).exists() and not os.environ.get("CI"),
                                    reason="Debian chromium not installed (apt-get install chromium)")]


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(folder: Path, handler=Quiet):
    """Serve a folder on 127.0.0.1 in a thread; returns (base URL, server to shut down)."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(folder)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{httpd.server_port}", httpd


class Watch:
    """Collects console errors, page errors and requests that leave the local server."""

    def __init__(self, page, base):
        self.errors, self.outside = [], []
        host = urlparse(base).netloc
        page.on("console", lambda msg: msg.type == "error" and self.errors.append(msg.text))
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))

        def on_request(request):
            url = urlparse(request.url)
            if url.scheme not in ("data", "blob", "about") and url.netloc != host:
                self.outside.append(request.url)
        page.on("request", on_request)


def chosen_tabs(page, selector: str = ".sd-tab-set:not(.sd-tab-content .sd-tab-set)") -> list[str]:
    """The chosen tab of each tab set: by default the steps' own sets, not those nested in a tab."""
    return page.eval_on_selector_all(
        selector, "sets => sets.map(s => s.querySelector(':scope > input:checked + label').textContent.trim())")
