"""Serve tests/pages over HTTP on two ports of 127.0.0.1.

A query `delay_ms=N` makes the answer come N ms late.
Two ports make two origins, so a page can embed a truly cross-origin iframe. HTML files may
write `{{OTHER_ORIGIN}}`; it is replaced by the base URL of the other server.
"""

from __future__ import annotations

import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

PAGES = Path(__file__).parent / "pages"
PLACEHOLDER = b"{{OTHER_ORIGIN}}"


class _Handler(SimpleHTTPRequestHandler):
    root: Path = PAGES
    other_origin = ""  # set once both servers are bound

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, directory=str(self.root), **kwargs)

    def do_GET(self) -> None:
        delay = parse_qs(urlsplit(self.path).query).get("delay_ms")
        if delay:  # a slow server: the page arrives that much later
            time.sleep(int(delay[0]) / 1000)
        path = Path(self.translate_path(self.path))
        if path.suffix != ".html" or not path.is_file():
            super().do_GET()
            return
        body = path.read_bytes().replace(PLACEHOLDER, self.other_origin.encode())
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # keep test output quiet
        pass


def _origin(server: ThreadingHTTPServer) -> str:
    host, port = server.server_address[:2]
    return f"http://{host}:{port}"


class PagesServer:
    """Two threaded static servers over one directory, each pointing pages at the other."""

    def __init__(self, root: Path = PAGES) -> None:
        self._servers = []
        for _ in range(2):
            handler = type("PagesHandler", (_Handler,), {"root": root})
            server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
            server.daemon_threads = True
            self._servers.append(server)
        first, second = self._servers
        first.RequestHandlerClass.other_origin = _origin(second)
        second.RequestHandlerClass.other_origin = _origin(first)
        self.origin = _origin(first)
        self.other_origin = _origin(second)

    def start(self) -> PagesServer:
        for server in self._servers:
            threading.Thread(target=server.serve_forever, daemon=True).start()
        return self

    def close(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()

    def url(self, path: str = "") -> str:
        """URL of `path` on the main origin."""
        return f"{self.origin}/{path.lstrip('/')}"

    def other_origin_url(self, path: str = "") -> str:
        """URL of `path` on the second origin (cross-origin to `url`)."""
        return f"{self.other_origin}/{path.lstrip('/')}"
