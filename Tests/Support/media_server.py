#!/usr/bin/env python3
"""A local media server for RichPush tests: real files and misbehaving routes, plus a receipts listener.

Binds 127.0.0.1 on a free port and prints `PORT n` as its first line. Python 3 standard library only.

Routes (GET unless said):
  /media/NAME                 a file from Tests/Fixtures/media, Content-Type from its extension
  /noext                      photo.jpg bytes, no extension in the URL
  /cdn/logo.png?w=720&sig=..  logo.png; 403 without both query parameters
  /octet                      logo.png bytes as application/octet-stream
  /404json  /500html  /login  a 404 JSON body, a 500 HTML page, a 200 HTML login page
  /empty                      200 with an empty body
  /big14  /big14-nolength     14 MB of JPEG-prefixed bytes, with and without Content-Length
  /sized?bytes=N              N bytes: photo.jpg then zeros (a valid-prefix JPEG), with Content-Length
  /drip                       JPEG-prefixed, 1 KB every 1.5 s (Content-Length 100 KB)
  /hang                       accepts, reads the request, never answers
  /slow-image?seconds=N       photo.jpg after N seconds (default 20): an avatar server that takes 20 s
  /redirect-to-image          302 to /media/photo.jpg
  /loop                       302 to itself
  /chain/N                    302 to /chain/N-1; /chain/0 serves photo.jpg
  /redirect-to-host?host=H    302 to http://H:PORT/media/photo.jpg
  /夏の 写真/photo 1.jpg       photo.jpg, only if the path arrives UTF-8 percent-encoded exactly once
  /twin/a/image.jpg, /twin/b/image.jpg   two different JPEGs (photo.jpg, progressive.jpg)
  /truncated/NAME?bytes=N     the first N bytes of a fixture (a download cut short), Content-Length N
  /long-scan?bytes=N          a JPEG of N bytes whose picture data runs to the end: photo.jpg's headers,
                              random entropy-coded bytes (FF stuffed as FF 00), EOI (an integrity-check workload)
  /identity-only/NAME         a fixture, only when the request says Accept-Encoding: identity (else 406)
  /gzip-photo                 photo.jpg gzip-compressed, Content-Encoding: gzip, whatever was asked
  /gzip-bomb?mb=N             Content-Encoding: gzip whatever was asked: a JPEG magic then N MB of zeros
                              (default 1100: 1.1 MB that inflate to 1.1 GB); a client that decodes must not hold it
  POST /receipts              records the form body, answers 200 {"ok": true}
  POST /receipts-500          answers 500
  POST /receipts-hang         never answers
  GET  /receipts/log          the recorded receipt bodies as a JSON array of strings
"""
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MEDIA = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "Fixtures", "media"))
TYPES = {
    ".jpg": "image/jpeg", ".png": "image/png", ".gif": "image/gif", ".webp": "image/webp",
    ".heic": "image/heic", ".svg": "image/svg+xml", ".bmp": "image/bmp", ".mp3": "audio/mpeg",
    ".m4a": "audio/mp4", ".wav": "audio/wav", ".aiff": "audio/aiff", ".mp4": "video/mp4",
    ".mov": "video/quicktime", ".html": "text/html",
}
UNICODE_PATH = "/夏の 写真/photo 1.jpg"
RECEIPTS = []
RECEIPTS_LOCK = threading.Lock()
LONG_SCANS = {}
BOMBS = {}
BOMB_LOCK = threading.Lock()


def long_scan(total):
    """photo.jpg up to its first scan's header, then random entropy-coded bytes, then EOI: `total` bytes."""
    with BOMB_LOCK:
        if total not in LONG_SCANS:
            photo = media("photo.jpg")
            sos = photo.index(b"\xff\xda")
            header = photo[: sos + 2 + int.from_bytes(photo[sos + 2 : sos + 4], "big")]
            body = os.urandom(max(0, total - len(header) - 2)).replace(b"\xff", b"\xff\x00")
            body = body[: max(0, total - len(header) - 2)]
            if body.endswith(b"\xff"):
                body = body[:-1] + b"\x00"
            LONG_SCANS[total] = header + body + b"\xff\xd9"
        return LONG_SCANS[total]


def gzip_bomb(megabytes):
    """A JPEG magic then `megabytes` MB of zeros, gzip-compressed ~1000:1 (made once per size; ~1 s for 1.1 GB)."""
    with BOMB_LOCK:
        if megabytes not in BOMBS:
            import zlib
            c = zlib.compressobj(6, zlib.DEFLATED, 31)
            zeros = b"\0" * (1 << 20)
            parts = [c.compress(b"\xff\xd8\xff\xe0")]
            for _ in range(megabytes):
                parts.append(c.compress(zeros))
            parts.append(c.flush())
            BOMBS[megabytes] = b"".join(parts)
        return BOMBS[megabytes]


def media(name):
    with open(os.path.join(MEDIA, name), "rb") as f:
        return f.read()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    server_version = "RichPushTestMedia/1"

    def log_message(self, fmt, *args):  # quiet: tests read stdout for PORT only
        pass

    def send_body(self, status, body, content_type, length=True):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def redirect(self, location, status=302):
        self.send_response(status)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def stream(self, total, content_length, chunk=65536, delay=0.0, first=b"\xff\xd8\xff\xe0"):
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        if content_length:
            self.send_header("Content-Length", str(total))
        self.end_headers()
        sent = 0
        head = first
        try:
            while sent < total:
                n = min(chunk, total - sent)
                block = (head + b"\0" * n)[:n]
                head = b""
                self.wfile.write(block)
                self.wfile.flush()
                sent += n
                if delay:
                    time.sleep(delay)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        try:
            self.route()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def route(self):
        raw_path, _, raw_query = self.path.partition("?")
        path = urllib.parse.unquote(raw_path)
        query = urllib.parse.parse_qs(raw_query)
        if path.startswith("/media/"):
            name = os.path.basename(path)
            full = os.path.join(MEDIA, name)
            if not os.path.isfile(full):
                return self.send_body(404, b'{"error":"not found"}', "application/json")
            return self.send_body(200, media(name), TYPES.get(os.path.splitext(name)[1], "application/octet-stream"))
        if path == "/noext":
            return self.send_body(200, media("photo.jpg"), "image/jpeg")
        if path == "/cdn/logo.png":
            if "w" not in query or "sig" not in query:
                return self.send_body(403, b"missing signature", "text/plain")
            return self.send_body(200, media("logo.png"), "image/png")
        if path == "/octet":
            return self.send_body(200, media("logo.png"), "application/octet-stream")
        if path == "/404json":
            return self.send_body(404, b'{"error":"no such image"}', "application/json")
        if path == "/500html":
            return self.send_body(500, b"<html><body><h1>Internal Server Error</h1></body></html>", "text/html")
        if path == "/login":
            page = b"<!DOCTYPE html><html><head><title>Sign in</title></head><body><form>" + b" " * 2000 + b"</form></body></html>"
            return self.send_body(200, page, "text/html; charset=utf-8")
        if path == "/empty":
            return self.send_body(200, b"", "image/jpeg")
        if path == "/big14":
            return self.stream(14_000_000, content_length=True)
        if path == "/big14-nolength":
            return self.stream(14_000_000, content_length=False)
        if path == "/sized":
            total = int(query.get("bytes", ["0"])[0])
            prefix = media("photo.jpg")[:total]
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Content-Length", str(total))
            self.end_headers()
            self.wfile.write(prefix)
            left = total - len(prefix)
            zeros = b"\0" * 65536
            while left > 0:
                n = min(left, len(zeros))
                self.wfile.write(zeros[:n])
                left -= n
            return
        if path == "/drip":
            return self.stream(100 * 1024, content_length=True, chunk=1024, delay=1.5)
        if path == "/hang":
            time.sleep(120)
            return
        if path == "/slow-image":
            time.sleep(float(query.get("seconds", ["20"])[0]))
            return self.send_body(200, media("photo.jpg"), "image/jpeg")
        if path == "/redirect-to-image":
            return self.redirect("/media/photo.jpg")
        if path == "/loop":
            return self.redirect("/loop")
        if path.startswith("/chain/"):
            n = int(path.rsplit("/", 1)[1])
            if n <= 0:
                return self.send_body(200, media("photo.jpg"), "image/jpeg")
            return self.redirect("/chain/%d" % (n - 1))
        if path == "/redirect-to-host":
            host = query.get("host", ["localhost"])[0]
            return self.redirect("http://%s:%d/media/photo.jpg" % (host, self.server.server_address[1]))
        if path == UNICODE_PATH:
            # Accept only the exact single UTF-8 percent-encoding (no double %25 escapes).
            if raw_path != urllib.parse.quote(UNICODE_PATH):
                return self.send_body(400, b"badly encoded path", "text/plain")
            return self.send_body(200, media("photo.jpg"), "image/jpeg")
        if path == "/twin/a/image.jpg":
            return self.send_body(200, media("photo.jpg"), "image/jpeg")
        if path == "/twin/b/image.jpg":
            return self.send_body(200, media("progressive.jpg"), "image/jpeg")
        if path.startswith("/truncated/"):
            name = os.path.basename(path)
            data = media(name)[: int(query.get("bytes", ["0"])[0])]
            return self.send_body(200, data, TYPES.get(os.path.splitext(name)[1], "application/octet-stream"))
        if path == "/long-scan":
            return self.send_body(200, long_scan(int(query.get("bytes", ["0"])[0])), "image/jpeg")
        if path.startswith("/identity-only/"):
            if self.headers.get("Accept-Encoding") != "identity":
                got = (self.headers.get("Accept-Encoding") or "none").encode()
                return self.send_body(406, b'{"error":"Accept-Encoding must be identity, got ' + got + b'"}', "application/json")
            name = os.path.basename(path)
            return self.send_body(200, media(name), TYPES.get(os.path.splitext(name)[1], "application/octet-stream"))
        if path in ("/gzip-photo", "/gzip-bomb"):
            import gzip
            megabytes = min(2000, max(1, int(query.get("mb", ["1100"])[0])))
            body = gzip.compress(media("photo.jpg")) if path == "/gzip-photo" else gzip_bomb(megabytes)
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if path == "/receipts/log":
            with RECEIPTS_LOCK:
                body = json.dumps(RECEIPTS).encode()
            return self.send_body(200, body, "application/json")
        return self.send_body(404, b'{"error":"no route"}', "application/json")

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace")
        path = self.path.partition("?")[0]
        if path == "/receipts":
            with RECEIPTS_LOCK:
                RECEIPTS.append(body)
            return self.send_body(200, b'{"ok":true}', "application/json")
        if path == "/receipts-500":
            return self.send_body(500, b"<h1>down</h1>", "text/html")
        if path == "/receipts-hang":
            time.sleep(60)
            return
        return self.send_body(404, b'{"error":"no route"}', "application/json")


def exit_with_parent(parent):
    """Tests start this server and may die without stopping it: leave when the parent goes."""
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(0)


class Server(ThreadingHTTPServer):
    # socketserver's default listen backlog is 5: dozens of test cases connecting at once
    # overflow it, the kernel drops their SYNs and the clients retry after 1 s, 3 s, 7 s,
    # which looks like a slow server to every deadline check.
    request_queue_size = 256


def main():
    threading.Thread(target=exit_with_parent, args=(os.getppid(),), daemon=True).start()
    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print("PORT %d" % server.server_address[1], flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
