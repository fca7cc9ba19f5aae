#!/usr/bin/env python3
"""A media + receipts server for the extension-depth tests (real socket, 127.0.0.1).

Prints "PORT n" once listening. Python 3 standard library only.

  GET  /media/NAME[?cc=VALUE][&rate=BYTES_PER_SECOND]
                               a file from Tests/Fixtures/media; Cache-Control: VALUE when given;
                               sent in 8 KB chunks at RATE bytes/s when given (a slow link)
  GET  /stall                  accepts, never answers
  GET  /requests               {"media": number of /media requests so far}
  POST (any path)              records the form body, answers the next status from --statuses
                               (comma list, the last one repeats; default 200)
  GET  /received               the receipts accepted (2xx) as a JSON list of {field: value}

  depth_server.py [--port N] [--statuses 503,200]
"""
import argparse, json, os, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit, unquote

MEDIA = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "Fixtures", "media"))
TYPES = {".jpg": "image/jpeg", ".png": "image/png", ".gif": "image/gif", ".mp3": "audio/mpeg", ".mp4": "video/mp4"}

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--statuses", default="200")
opts = parser.parse_args()
statuses = [int(s) for s in opts.statuses.split(",")]
received = []
counts = {"media": 0}
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", content_type="application/json", extra=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length).decode("utf-8", "replace")
        with lock:
            status = statuses.pop(0) if len(statuses) > 1 else statuses[0]
            if 200 <= status < 300:
                received.append(dict(parse_qsl(body)))
        self.reply(status)

    def do_GET(self):
        parts = urlsplit(self.path)
        query = dict(parse_qsl(parts.query))
        if parts.path.startswith("/media/"):
            name = os.path.basename(unquote(parts.path[len("/media/"):]))
            with lock:
                counts["media"] += 1
            try:
                with open(os.path.join(MEDIA, name), "rb") as f:
                    data = f.read()
            except OSError:
                return self.reply(404, b'{"error":"not found"}')
            extra = {"Cache-Control": query["cc"]} if "cc" in query else {}
            content_type = TYPES.get(os.path.splitext(name)[1], "application/octet-stream")
            if "rate" not in query:
                return self.reply(200, data, content_type, extra)
            rate = max(1, int(query["rate"]))
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for k, v in extra.items():
                self.send_header(k, v)
            self.end_headers()
            for i in range(0, len(data), 8192):
                self.wfile.write(data[i:i + 8192])
                self.wfile.flush()
                time.sleep(min(8192, len(data) - i) / rate)
            return
        if parts.path == "/stall":
            time.sleep(120)
            return
        if parts.path == "/requests":
            with lock:
                return self.reply(200, json.dumps(counts).encode())
        if parts.path == "/received":
            with lock:
                return self.reply(200, json.dumps(received).encode())
        self.reply(404, b"{}")


class Server(ThreadingHTTPServer):
    daemon_threads = True
    # Not socketserver's 5: a full backlog drops SYNs, and clients retry only after 1 s.
    request_queue_size = 256


server = Server(("127.0.0.1", opts.port), Handler)
print(f"PORT {server.server_address[1]}", flush=True)
try:
    server.serve_forever()
except KeyboardInterrupt:
    pass
