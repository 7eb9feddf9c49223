"""The page's files on a server with an API key: served without the key (they hold no data),
while the API behind them still asks for it."""

from __future__ import annotations

import httpx
import pytest
from server_harness import start_server


@pytest.fixture(scope="module")
def server():
    server = start_server(api_key="page-key")
    yield server
    server.stop()


def test_the_page_is_open_and_the_api_is_not(server):
    page = httpx.get(server.http_url + "/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert '<script src="/ui/app.js"' in page.text
    for name, kind in (("app.js", "javascript"), ("style.css", "text/css")):
        response = httpx.get(f"{server.http_url}/ui/{name}")
        assert response.status_code == 200 and kind in response.headers["content-type"]
    assert httpx.get(server.http_url + "/ui/missing.js").status_code == 404
    # Only the page's own folder: nothing above it.
    assert httpx.get(server.http_url + "/ui/%2e%2e/app.py").status_code == 404
    assert httpx.get(server.http_url + "/v1/voices").status_code == 401
