#!/usr/bin/env python3
"""An APNs stand-in on hypercorn (an ASGI server on Python h2), independent of RichPush's code.

Issue 27 proves RichPush's HTTP/2 client against servers it did not write; this is one: the HTTP/2
framing, flow control, stream limits and GOAWAY are hypercorn's own (it is what users deploy), the
ASGI app below only answers and counts.

  * POST /3/device/<token>: 200, an apns-id header (the request's, else a new UUID), empty body.
    Counted per token once the request body has been received (a request whose client went away
    before its body ended is not counted). No JWT or header checks: Tests/Support/mock_apns.py and
    benchmarks/mock-apns do those.
  * GET /stats: JSON {requests, per_token, distinct_tokens, tokens_sent_twice (tokens with 2 or
    more requests), duplicate_requests (requests beyond each token's first), connections (distinct
    client (host, port) pairs that sent /3/device requests), responses (answers this app handed to hypercorn:
    hypercorn may still drop them, see below), max_requests, max_streams}. GOAWAY frames are
    hypercorn's and not visible to an ASGI app: not counted.
  * POST /control/reset: zeroes every count.

Options: --port 0 (0: a free port); TLS with --certfile/--keyfile, or by default a throwaway CA and
a server certificate for 127.0.0.1 and localhost made with trustme (its CA written to --ca-out);
--no-tls: cleartext h2c with prior knowledge; --max-requests N: hypercorn's
keep_alive_max_requests (default 1000, hypercorn's own); --max-streams N: hypercorn's
h2_max_concurrent_streams, SETTINGS_MAX_CONCURRENT_STREAMS (default 100, hypercorn's own);
--delay-ms N: each /3/device answer N ms after its body arrived (asyncio.sleep; other requests are
served meanwhile).

What hypercorn 0.18 (h2 4.x) does, read in its protocol/h2.py and seen on the wire (nghttp -v):
  * At keep_alive_max_requests: when request N + 1 of a connection arrives it calls h2's
    close_connection(): GOAWAY (NO_ERROR) whose last-stream-id is the highest stream received so
    far, again for every later request h2 still parses (the same id each time). Streams at or
    below it are passed to this app and counted; but h2 is then CLOSED and sends nothing more, so
    none of them is answered after the GOAWAY. Streams above it are never processed. A client
    sees streams at or below the last-stream-id that never get an answer until the connection
    ends (right away if the client keeps sending, which h2 answers with GOAWAY PROTOCOL_ERROR;
    after several seconds if it does not): it cannot know they were processed, and they were.
  * More streams than h2_max_concurrent_streams opened before the client has seen the SETTINGS
    (legal: the initial limit is unlimited): a connection error, GOAWAY (PROTOCOL_ERROR), and
    nothing on the connection is processed, not even the streams within the limit.

Prints "PORT n" first (the socket is bound here and handed to hypercorn as fd://), then "CA path"
when it made the CA.
"""
import argparse
import asyncio
import json
import os
import shutil
import socket
import sys
import tempfile
import uuid

from hypercorn.asyncio import serve
from hypercorn.config import Config


class Counts:
    def __init__(self, args):
        self.args = args
        self.reset()

    def reset(self):
        self.requests = 0
        self.responses = 0
        self.per_token = {}
        self.tokens_twice = 0
        self.duplicate_requests = 0
        self.clients = set()

    def count(self, token, client):
        self.requests += 1
        self.clients.add(client)
        n = self.per_token.get(token, 0) + 1
        self.per_token[token] = n
        if n >= 2:
            self.duplicate_requests += 1
        if n == 2:
            self.tokens_twice += 1

    def stats(self):
        return {"requests": self.requests, "per_token": self.per_token, "distinct_tokens": len(self.per_token),
                "tokens_sent_twice": self.tokens_twice, "duplicate_requests": self.duplicate_requests,
                "connections": len(self.clients), "responses": self.responses,
                "max_requests": self.args.max_requests, "max_streams": self.args.max_streams}


def make_app(counts, delay_s):
    async def answer(send, status, headers=(), body=b""):
        await send({"type": "http.response.start", "status": status, "headers": list(headers)})
        await send({"type": "http.response.body", "body": body})

    async def json_answer(send, status, doc):
        body = json.dumps(doc).encode()
        await answer(send, status, [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())], body)

    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        # The whole request body first: a request counts once it has fully arrived.
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            if not message.get("more_body", False):
                break
        path, method = scope["path"], scope["method"]
        if path.startswith("/3/device/"):
            if method != "POST":
                await json_answer(send, 405, {"reason": "MethodNotAllowed"})
                return
            token = path[len("/3/device/"):]
            if not token:
                await json_answer(send, 400, {"reason": "MissingDeviceToken"})
                return
            counts.count(token, tuple(scope.get("client") or ("", 0)))
            if delay_s > 0:
                await asyncio.sleep(delay_s)
            apns_id = dict(scope["headers"]).get(b"apns-id") or str(uuid.uuid4()).encode()
            await answer(send, 200, [(b"apns-id", apns_id), (b"content-length", b"0")])
            counts.responses += 1
        elif path == "/stats" and method == "GET":
            await json_answer(send, 200, counts.stats())
        elif path == "/control/reset" and method == "POST":
            counts.reset()
            await json_answer(send, 200, {"ok": True})
        else:
            await json_answer(send, 404, {"reason": "BadPath"})

    return app


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one, printed)")
    p.add_argument("--no-tls", action="store_true", help="cleartext HTTP/2 (h2c, prior knowledge)")
    p.add_argument("--certfile", help="TLS: the server certificate (PEM), with --keyfile")
    p.add_argument("--keyfile", help="TLS: its private key (PEM)")
    p.add_argument("--ca-out", help="TLS without --certfile: write the throwaway CA's PEM here (default ./hypercorn-apns-ca.pem)")
    p.add_argument("--max-requests", type=int, default=1000,
                   help="hypercorn's keep_alive_max_requests: requests per connection before its GOAWAY (default 1000, hypercorn's)")
    p.add_argument("--max-streams", type=int, default=100,
                   help="hypercorn's h2_max_concurrent_streams: SETTINGS_MAX_CONCURRENT_STREAMS (default 100, hypercorn's)")
    p.add_argument("--delay-ms", type=int, default=0, help="answer each /3/device request this many ms after its body arrived")
    args = p.parse_args()
    if bool(args.certfile) != bool(args.keyfile):
        p.error("--certfile and --keyfile go together")
    if args.no_tls and (args.certfile or args.ca_out):
        p.error("--no-tls serves cleartext: no --certfile, --keyfile or --ca-out")
    if args.max_requests < 1 or args.max_streams < 1 or args.delay_ms < 0 or not 0 <= args.port <= 65535:
        p.error("--max-requests and --max-streams want a number >= 1, --delay-ms >= 0, --port 0..65535")

    config = Config()
    config.keep_alive_max_requests = args.max_requests
    config.h2_max_concurrent_streams = args.max_streams
    config.errorlog = "-"
    scratch = None
    ca_path = None
    if not args.no_tls:
        if args.certfile:
            config.certfile, config.keyfile = args.certfile, args.keyfile
        else:
            import trustme
            ca = trustme.CA()
            cert = ca.issue_cert("127.0.0.1", "localhost")
            scratch = tempfile.mkdtemp(prefix="hypercorn-apns-")
            config.certfile = os.path.join(scratch, "server.pem")
            config.keyfile = os.path.join(scratch, "server.key")
            cert.cert_chain_pems[0].write_to_path(config.certfile)
            for pem in cert.cert_chain_pems[1:]:
                pem.write_to_path(config.certfile, append=True)
            cert.private_key_pem.write_to_path(config.keyfile)
            ca_path = args.ca_out or "hypercorn-apns-ca.pem"
            ca.cert_pem.write_to_path(ca_path)
        config.alpn_protocols = ["h2"]

    # Bound here, so the port is known before hypercorn starts; hypercorn takes the descriptor.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(1024)
    sock.set_inheritable(True)
    config.bind = [f"fd://{sock.fileno()}"]
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    if ca_path:
        print(f"CA {ca_path}", flush=True)

    counts = Counts(args)
    try:
        asyncio.run(serve(make_app(counts, args.delay_ms / 1000), config, mode="asgi"))
    except KeyboardInterrupt:
        pass
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
