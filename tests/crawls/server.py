#!/usr/bin/env python3
"""Fixture web server for tests/crawls/make.sh.

Serves tests/crawls/site/ on 127.0.0.1 only (never another address), on a
free port chosen by the kernel, and writes that port to --port-file.

Besides plain files it answers:
  /old-article          301 to /article.html (absolute Location)
  /chunked.html         body sent with Transfer-Encoding: chunked (HTTP/1.1 clients)
  /gzip.html            Content-Encoding: gzip when the client accepts gzip
  /charset-header.html  charset only in the HTTP header (windows-1251 bytes)
  /charset-meta.html    charset only in <meta charset> (windows-1252 bytes)
  anything else         404

Headers that would change from run to run (Date, Last-Modified, Server) are
fixed so that the fixtures are as reproducible as the writers allow. It
also accepts absolute-form request targets ("GET http://twinpage.test/x
HTTP/1.1"), which is what wget sends when it is pointed at this server as
its HTTP proxy: that is how the crawl gets stable URLs on a random port.
"""
import argparse
import gzip
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

SITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "site")
DATE = "Wed, 01 May 2024 12:00:00 GMT"
LAST_MODIFIED = "Mon, 29 Apr 2024 08:30:00 GMT"

HTML = "text/html; charset=utf-8"
# path -> (file under site/, Content-Type, how to send it)
ROUTES = {
    "/article.html": ("article.html", HTML, "plain"),
    "/article-copy.html": ("article-copy.html", HTML, "plain"),
    "/other.html": ("other.html", HTML, "plain"),
    "/app.html": ("app.html", HTML, "plain"),
    "/chunked.html": ("chunked.html", HTML, "chunked"),
    "/gzip.html": ("gzip.html", HTML, "gzip"),
    "/charset-header.html": ("charset-header.html", "text/html; charset=windows-1251", "plain"),
    "/charset-meta.html": ("charset-meta.html", "text/html", "plain"),
    "/static/site.css": ("static/site.css", "text/css", "plain"),
    "/static/logo.png": ("static/logo.png", "image/png", "plain"),
    "/static/app.js": ("static/app.js", "text/javascript", "plain"),
}
REDIRECTS = {"/old-article": "/article.html"}
NOT_FOUND = (b"<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n"
             b"<body><h1>Not Found</h1><p>The requested page does not exist.</p></body></html>\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "twinpage-fixture-server/1.0"

    def version_string(self):
        return self.server_version

    def date_time_string(self, timestamp=None):
        return DATE

    def log_message(self, fmt, *args):
        sys.stderr.write("server: %s\n" % (fmt % args))

    def _host(self):
        target = urlsplit(self.path)
        return self.headers.get("Host") or target.netloc or "localhost"

    def _send(self, status, headers, body):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        path = urlsplit(self.path).path  # drops ?query and an absolute-form scheme://host
        if path in REDIRECTS:
            location = "http://%s%s" % (self._host(), REDIRECTS[path])
            body = ('<!DOCTYPE html>\n<html><head><title>301 Moved Permanently</title></head>\n'
                    '<body><p>Moved to <a href="%s">%s</a>.</p></body></html>\n' % (location, location)).encode()
            self._send(301, [("Location", location), ("Content-Type", HTML)], body)
            return
        if path not in ROUTES:
            self._send(404, [("Content-Type", HTML)], NOT_FOUND)
            return
        name, ctype, mode = ROUTES[path]
        with open(os.path.join(SITE, name), "rb") as f:
            body = f.read()
        headers = [("Content-Type", ctype), ("Last-Modified", LAST_MODIFIED)]
        if mode == "gzip":
            headers.append(("Vary", "Accept-Encoding"))
            if "gzip" in self.headers.get("Accept-Encoding", ""):
                headers.append(("Content-Encoding", "gzip"))
                body = gzip.compress(body, compresslevel=9, mtime=0)
        if mode == "chunked" and self.request_version == "HTTP/1.1":
            self.send_response(200)
            for hname, value in headers:
                self.send_header(hname, value)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            if self.command == "HEAD":
                return
            # Uneven chunk sizes, lower-case hex, as many servers send them.
            sizes = [700, 26, 300]
            pos = 0
            for size in sizes + [len(body)]:
                piece = body[pos:pos + size]
                if not piece:
                    break
                self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
                pos += len(piece)
            self.wfile.write(b"0\r\n\r\n")
            return
        self._send(200, headers, body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    args = ap.parse_args()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = httpd.server_address[1]
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
    os.replace(tmp, args.port_file)
    sys.stderr.write("server: listening on 127.0.0.1:%d\n" % port)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
