#!/usr/bin/env python3
"""A receipts server for the extension-depth tests (real socket, 127.0.0.1).

Prints "PORT n" once listening. POST /v1/receipts (any path) records the form body, then answers
with the next status from --statuses (comma list; the last one repeats; default 200).
GET /received returns the recorded bodies as a JSON list of {field: value} objects.

  depth_receipt_server.py [--port N] [--statuses 503,200]
"""
import argparse, json, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--statuses", default="200")
opts = parser.parse_args()
statuses = [int(s) for s in opts.statuses.split(",")]
received = []
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length).decode("utf-8", "replace")
        with lock:
            status = statuses.pop(0) if len(statuses) > 1 else statuses[0]
            if 200 <= status < 300:
                received.append(dict(parse_qsl(body)))
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        with lock:
            data = json.dumps(received).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


server = ThreadingHTTPServer(("127.0.0.1", opts.port), Handler)
print(f"PORT {server.server_address[1]}", flush=True)
try:
    server.serve_forever()
except KeyboardInterrupt:
    pass
