#!/usr/bin/env python3
"""Serves bankviz's browser build (build-web/site) on 127.0.0.1: scripts/web.sh --serve.

usage: serve_site.py SITE_DIR [PORT] [--bind ADDR]

Every response carries the headers that make the page cross-origin isolated (the app's workers
share its memory), and .wasm goes out as application/wasm. Bound to 127.0.0.1 unless told
otherwise; for a course, any static web server that sends the same two headers will do (or none:
the page's sw.js adds them).
"""
import functools
import http.server
import sys


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".js": "text/javascript",
                      ".data": "application/octet-stream"}

    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, fmt, *args):  # quiet unless asked
        if "-v" in sys.argv:
            super().log_message(fmt, *args)


def main():
    args = [a for a in sys.argv[1:] if a != "-v"]
    bind = "127.0.0.1"
    if "--bind" in args:
        i = args.index("--bind")
        bind = args[i + 1]
        del args[i:i + 2]
    if not args:
        sys.exit(__doc__)
    site = args[0]
    port = int(args[1]) if len(args) > 1 else 8080
    handler = functools.partial(Handler, directory=site)
    server = http.server.ThreadingHTTPServer((bind, port), handler)
    print(f"bankviz: serving {site} on http://{bind}:{server.server_port}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
