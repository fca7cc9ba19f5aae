#!/usr/bin/env python3
"""Media server for the media-probe tests (issue 19): serves a directory of files made at test time.

Usage: probe_media_server.py DIR [--tls-ca-out FILE]. Binds 127.0.0.1 on a free port, prints
`PORT n` first. Python 3 standard library only (trustme with --tls-ca-out); exits when its parent
does. --tls-ca-out FILE: serve https with a certificate for 127.0.0.1 from a throwaway trustme CA,
whose PEM is written to FILE (for `--media-ca-file FILE`).

Routes (GET):
  /f/NAME                  DIR/NAME, Content-Type from the extension, with Content-Length
  /wrong-type              DIR/photo.jpg bytes, no extension, Content-Type: text/html
  /chain/N                 302 to /chain/N-1; /chain/0 serves DIR/photo.jpg
  /redirect?to=URL         302 to URL (any host: the probe must check every hop)
  /slow                    200 and headers, then one byte a second (a slow host)
  /missing.jpg             404 with an HTML body
  /jpeg-then-html          a JPEG's first 600 bytes, then an HTML page (a broken CDN answer)
  /bad-length              Content-Length: 99999999999999999999999 (past 2^64), photo.jpg, then close
  /auth/NAME               DIR/NAME; records the Authorization header (or "-") for NAME
  /log                     JSON {"paths": [...every path requested, with its query...], "auth": {NAME: [values]}}
"""
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.abspath(sys.argv[1])
TYPES = {
    ".jpg": "image/jpeg", ".png": "image/png", ".gif": "image/gif", ".webp": "image/webp",
    ".heic": "image/heic", ".avif": "image/avif", ".svg": "image/svg+xml", ".bmp": "image/bmp",
    ".tiff": "image/tiff", ".jxl": "image/jxl", ".mp4": "video/mp4", ".mp3": "audio/mpeg",
}
LOCK = threading.Lock()
PATHS = []
AUTH = {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_file(self, path, content_type=None):
        full = os.path.realpath(os.path.join(ROOT, path))
        if not full.startswith(ROOT + os.sep) or not os.path.isfile(full):
            return self.answer(404, b"<html><body>not found</body></html>", "text/html")
        size = os.path.getsize(full)
        self.send_response(200)
        self.send_header("Content-Type", content_type or TYPES.get(os.path.splitext(full)[1], "application/octet-stream"))
        self.send_header("Content-Length", str(size))
        self.end_headers()
        try:
            with open(full, "rb") as f:
                while True:
                    chunk = f.read(1 << 16)
                    if not chunk:
                        break
                    self.wfile.write(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def answer(self, status, body, content_type="text/plain", extra=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(url.path)
        query = urllib.parse.parse_qs(url.query)
        with LOCK:
            PATHS.append(path + ("?" + url.query if url.query else ""))
        if path.startswith("/f/"):
            return self.send_file(path[3:])
        if path == "/wrong-type":
            return self.send_file("photo.jpg", "text/html")
        if path.startswith("/chain/"):
            n = int(path[len("/chain/"):] or "0")
            if n <= 0:
                return self.send_file("photo.jpg")
            return self.answer(302, b"", extra=[("Location", "/chain/%d" % (n - 1))])
        if path == "/redirect":
            return self.answer(302, b"", extra=[("Location", query.get("to", ["/"])[0])])
        if path == "/slow":
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            try:
                for _ in range(60):
                    self.wfile.write(b"\xff")
                    self.wfile.flush()
                    time.sleep(1)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        if path == "/jpeg-then-html":
            with open(os.path.join(ROOT, "photo.jpg"), "rb") as f:
                head = f.read(600)
            body = head + b"<!DOCTYPE html><html><body>Service Unavailable</body></html>" * 20
            return self.answer(200, body, "image/jpeg")
        if path == "/bad-length":
            with open(os.path.join(ROOT, "photo.jpg"), "rb") as f:
                body = f.read()
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Content-Length", "99999999999999999999999")
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
            return
        if path.startswith("/auth/"):
            name = path[len("/auth/"):]
            with LOCK:
                AUTH.setdefault(name, []).append(self.headers.get("Authorization", "-"))
            return self.send_file(name)
        if path == "/log":
            with LOCK:
                body = json.dumps({"paths": PATHS, "auth": AUTH}).encode()
            return self.answer(200, body, "application/json")
        return self.answer(404, b"<html><body>not found</body></html>", "text/html")


class Server(ThreadingHTTPServer):
    request_queue_size = 128
    daemon_threads = True


class TLSServer(Server):
    """https: each connection's TLS handshake runs in its own handler thread, not in accept()."""
    context = None

    def get_request(self):
        sock, address = self.socket.accept()
        return self.context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), address

    def finish_request(self, request, client_address):
        try:
            request.settimeout(10)
            request.do_handshake()
            request.settimeout(None)
        except (OSError, ValueError):
            return
        super().finish_request(request, client_address)


def main():
    parent = os.getppid()
    if len(sys.argv) > 3 and sys.argv[2] == "--tls-ca-out":
        import ssl
        import trustme
        ca = trustme.CA()
        TLSServer.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ca.issue_cert("127.0.0.1", "localhost").configure_cert(TLSServer.context)
        ca.cert_pem.write_to_path(sys.argv[3])
        server = TLSServer(("127.0.0.1", 0), Handler)
    else:
        server = Server(("127.0.0.1", 0), Handler)
    print("PORT %d" % server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    while os.getppid() == parent:  # tests may die without stopping it: leave when the parent goes
        time.sleep(0.5)
    os._exit(0)


if __name__ == "__main__":
    main()
