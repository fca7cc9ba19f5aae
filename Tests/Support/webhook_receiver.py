#!/usr/bin/env python3
"""A webhook receiver for RichPush tests: checks each POST's RichPush-Signature with the Python
verification snippet of docs/webhooks.md (extracted and run as documented), and logs what it got.

Binds 127.0.0.1 on --port (0: a free one) and prints `PORT n` as its first line. Python 3
standard library only. Every request is appended as one JSON line to --log:
  {"verified": bool, "status": answered, "id", "type", "attempt", "created_at", "data", "header", "at": unix}
Answers: 401 when the signature does not verify; --status N (default 200) otherwise, with
`Location: /elsewhere` for a 3xx; a request to /elsewhere is logged as {"elsewhere": true}.
--hold-file PATH: while PATH exists, a request is logged as {"held": true} and waits (up to 60 s)
before it is checked and answered.
--hang-path PATH: a request to that path (e.g. /hang) is logged as {"hung": true} and never
answered (the connection stays open until the client gives up): a receiver that hangs.
"""
import argparse
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "..", "..", "docs", "webhooks.md")


def documented_verify(path):
    """The `verify` function of the doc's Python snippet (the block after `<!-- verify: python -->`)."""
    text = open(path, encoding="utf-8").read()
    match = re.search(r"<!-- verify: python -->\s*```python\n(.*?)```", text, re.S)
    if not match:
        sys.exit("webhook_receiver: no Python verification snippet in " + path)
    scope = {}
    exec(compile(match.group(1), path, "exec"), scope)
    return scope["verify"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--secret", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--status", type=int, default=200)
    parser.add_argument("--hold-file")
    parser.add_argument("--hang-path")
    args = parser.parse_args()
    verify = documented_verify(DOC)
    lock = threading.Lock()

    def log(entry):
        entry["at"] = time.time()
        with lock, open(args.log, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry, sort_keys=True) + "\n")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def answer(self, status, extra=()):
            self.send_response(status)
            for name, value in extra:
                self.send_header(name, value)
            self.send_header("Content-Type", "text/plain")
            body = b"signature does not verify" if status == 401 else b"ok"
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if args.hang_path and self.path.split("?")[0] == args.hang_path:
                log({"hung": True, "header_id": self.headers.get("RichPush-Event-Id")})
                time.sleep(600)
                return
            if self.path == "/elsewhere":
                log({"elsewhere": True})
                return self.answer(200)
            if args.hold_file and os.path.exists(args.hold_file):
                log({"held": True, "header_id": self.headers.get("RichPush-Event-Id")})
                end = time.time() + 60
                while os.path.exists(args.hold_file) and time.time() < end:
                    time.sleep(0.05)
            header = self.headers.get("RichPush-Signature", "")
            ok = verify(header, body, args.secret)
            entry = {"verified": ok, "header": header, "attempt": self.headers.get("RichPush-Delivery-Attempt")}
            try:
                event = json.loads(body)
                entry.update({k: event.get(k) for k in ("id", "type", "created_at", "data")})
                entry["header_id"] = self.headers.get("RichPush-Event-Id")
            except ValueError:
                entry["unparsable"] = body.decode("utf-8", "replace")[:200]
            status = args.status if ok else 401
            entry["status"] = status
            log(entry)
            self.answer(status, [("Location", "/elsewhere")] if 300 <= status < 400 else ())

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print("PORT %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
