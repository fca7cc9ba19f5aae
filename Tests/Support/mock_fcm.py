#!/usr/bin/env python3
"""A mock of Google's OAuth2 token endpoint and FCM HTTP v1 messages:send, without TLS: HTTP/1.1
and HTTP/2 by prior knowledge ("h2c") on the same port, served by hypercorn (RichPush sends messages
over its own HTTP/2 client and fetches access tokens with libcurl over HTTP/1.1, as against Google).

  POST /token                               verifies the RS256 service-account assertion against the
                                            public half of --key (grant type, alg, iss, aud = this
                                            URL, scope, exp - iat <= 3600) and returns
                                            {"access_token", "expires_in": 3599}.
  POST /v1/projects/<project>/messages:send needs "Bearer <issued token>" (else 401 UNAUTHENTICATED);
                                            another project is 404 NOT_FOUND. Checks the message as
                                            FCM does: a string "token", "apns.payload" an object,
                                            "apns.headers" and "data" string-valued, "android" an
                                            object whose "collapse_key" is a string, and
                                            apns.payload.aps["mutable-content"] the integer 1 when
                                            apns.fcm_options.image names an image (else 400
                                            INVALID_ARGUMENT about the message). Then, by token:
                                              * a scripted answer (see below), else
                                              * a token starting "unregistered" gets 404 UNREGISTERED,
                                              * "mismatch" 403 SENDER_ID_MISMATCH,
                                              * "invalid" 400 INVALID_ARGUMENT naming message.token,
                                              * else 200 {"name": "projects/<p>/messages/<n>"}.
  Scripted answers: --script FILE or POST /control/script, a JSON object token -> list of
  {"status": 429, "errorCode": "QUOTA_EXCEEDED", "retryAfter": "1", "message": "...",
   "html": true (a text/html body instead of FCM JSON)}, used in order, the last one repeating.
  POST /control/revoke                      forgets every issued access token (the next send gets 401).
  GET /stats                                {"token_fetches", "sends", "accepted", "per_token",
                                             "last_message", "last_body_b64", "max_concurrent",
                                             "last_delivered": what an iOS device gets for the last
                                             accepted message: apns.payload plus the keys FCM adds,
                                             "gcm.message_id" and "google.c.a.e"}.

Usage: mock_fcm.py --key RSA.pem --client-email E --project P [--script FILE]   (prints "PORT n")
"""
import argparse
import base64
import decimal
import json
import sys
import threading
import time
import urllib.parse
import asyncio
import socket

import hypercorn.asyncio
from hypercorn.config import Config

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

FCM_ERROR = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"
STATUS_OF = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
             429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}


def b64(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def fcm_error(status, code, message, token_field=False):
    details = [{"@type": FCM_ERROR, "errorCode": code}] if code else []
    if token_field:
        details.append({"@type": BAD_REQUEST, "fieldViolations": [{"field": "message.token", "description": "Invalid registration token"}]})
    return {"error": {"code": status, "message": message, "status": STATUS_OF.get(status, "UNKNOWN"), "details": details}}


class Request:
    """One request, whatever the protocol: method, path, lower-cased headers, body; reply() sets the answer."""

    def __init__(self, state, port, method, path, headers, body):
        self.state = state
        self.port = port
        self.command = method
        self.path = path
        self.headers = headers
        self.body = body
        self.answer = (404, [], b"")

    def reply(self, status, doc, headers=(), content_type="application/json", raw=None):
        body = raw if raw is not None else json.dumps(doc, default=str).encode()
        self.answer = (status, [("content-type", content_type)] + list(headers), body)

    def handle(self):
        if self.command == "GET":
            return self.do_GET()
        if self.command == "POST":
            return self.do_POST()
        self.reply(405, fcm_error(405, None, "method not allowed"))

    def do_GET(self):
        s = self.state
        if self.path == "/stats":
            with s["lock"]:
                return self.reply(200, {"token_fetches": s["fetches"], "sends": s["sends"], "accepted": s["accepted"],
                                        "per_token": s["per_token"], "last_message": s["last"],
                                        "last_body_b64": s["last_body"], "max_concurrent": s["max_concurrent"],
                                        "last_delivered": s["delivered"], "http2_requests": s["http2_requests"]})
        self.reply(404, fcm_error(404, None, "no such path"))

    def do_POST(self):
        s = self.state
        body = self.body
        if self.path == "/token":
            return self.token(body)
        if self.path == "/control/script":
            with s["lock"]:
                s["script"].update(json.loads(body or b"{}"))
            return self.reply(200, {"ok": True})
        if self.path == "/control/revoke":
            with s["lock"]:
                s["tokens"].clear()
            return self.reply(200, {"ok": True})
        if self.path.startswith("/v1/projects/") and self.path.endswith("/messages:send"):
            return self.send_message(body)
        self.reply(404, fcm_error(404, None, "no such path"))

    def token(self, body):
        s = self.state
        form = urllib.parse.parse_qs(body.decode())
        if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
            return self.reply(400, {"error": "unsupported_grant_type", "error_description": "Invalid grant_type"})
        try:
            h, c, sig = form["assertion"][0].split(".")
            header, claims = json.loads(b64(h)), json.loads(b64(c))
            s["public_key"].verify(b64(sig), (h + "." + c).encode(), padding.PKCS1v15(), hashes.SHA256())
        except (KeyError, ValueError, InvalidSignature):
            return self.reply(400, {"error": "invalid_grant", "error_description": "Invalid JWT Signature."})
        expected_aud = f"http://127.0.0.1:{self.port}/token"
        if (header.get("alg") != "RS256" or claims.get("iss") != s["email"] or claims.get("aud") != expected_aud
                or claims.get("scope") != "https://www.googleapis.com/auth/firebase.messaging"
                or claims.get("exp", 0) - claims.get("iat", 0) > 3600):
            return self.reply(400, {"error": "invalid_grant", "error_description": "Invalid JWT claims."})
        with s["lock"]:
            s["fetches"] += 1
            token = f"ya29.mock-{s['fetches']}"
            s["tokens"].add(token)
        return self.reply(200, {"access_token": token, "expires_in": 3599, "token_type": "Bearer"})

    def send_message(self, body):
        s = self.state
        auth = self.headers.get("authorization", "")
        with s["lock"]:
            known = auth.startswith("Bearer ") and auth[7:] in s["tokens"]
        if not known:
            return self.reply(401, fcm_error(401, None, "Request had invalid authentication credentials. Expected OAuth 2 access token."))
        if self.path != f"/v1/projects/{s['project']}/messages:send":
            return self.reply(404, fcm_error(404, None, "Requested entity was not found."))
        try:
            # Decimals: 1e400 or 0.1000 in a payload stay what they were (floats would turn 1e400 into inf).
            message = json.loads(body, parse_float=decimal.Decimal).get("message")
        except ValueError:
            return self.reply(400, fcm_error(400, "INVALID_ARGUMENT", "Invalid JSON payload received."))
        with s["lock"]:
            s["sends"] += 1
            s["last"] = message
            s["last_body"] = base64.b64encode(body).decode()
        if not isinstance(message, dict) or not isinstance(message.get("token"), str):
            return self.reply(400, fcm_error(400, "INVALID_ARGUMENT", "Recipient of the message is not set."))
        token = message["token"]
        with s["lock"]:
            s["per_token"][token] = s["per_token"].get(token, 0) + 1
        apns = message.get("apns", {})
        if not isinstance(apns.get("payload", {}), dict):
            return self.reply(400, fcm_error(400, "INVALID_ARGUMENT", "Invalid value at 'message.apns.payload'"))
        for name, value in list(apns.get("headers", {}).items()) + list(message.get("data", {}).items()):
            if not isinstance(value, str):
                return self.reply(400, fcm_error(400, "INVALID_ARGUMENT", f"Invalid value at '{name}' (TYPE_STRING)"))
        android = message.get("android", {})
        if not isinstance(android, dict) or not isinstance(android.get("collapse_key", ""), str):
            return self.reply(400, fcm_error(400, "INVALID_ARGUMENT", "Invalid value at 'message.android.collapse_key' (TYPE_STRING)"))
        aps = apns.get("payload", {}).get("aps", {})
        image = apns.get("fcm_options", {}).get("image")
        if image and not (type(aps.get("mutable-content")) is int and aps.get("mutable-content") == 1):
            return self.reply(400, fcm_error(400, "INVALID_ARGUMENT", "mutable-content must be 1 for an image"))
        with s["lock"]:
            steps = s["script"].get(token)
            step = (steps.pop(0) if len(steps) > 1 else steps[0]) if steps else None
        if step:
            status = int(step.get("status", 200))
            if status != 200:
                headers = [("retry-after", str(step["retryAfter"]))] if "retryAfter" in step else []
                if step.get("html"):
                    page = b"<html><head><title>502 Bad Gateway</title></head><body>" + b"x" * 100_000 + b"</body></html>"
                    return self.reply(status, None, headers, content_type="text/html", raw=page)
                code = step.get("errorCode")
                return self.reply(status, fcm_error(status, code, step.get("message", code or "error"),
                                                    token_field=step.get("tokenField", False)), headers)
        if token.startswith("unregistered"):
            return self.reply(404, fcm_error(404, "UNREGISTERED", "Requested entity was not found."))
        if token.startswith("mismatch"):
            return self.reply(403, fcm_error(403, "SENDER_ID_MISMATCH", "SenderId mismatch"))
        if token.startswith("invalid"):
            return self.reply(400, fcm_error(400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token",
                                             token_field=True))
        with s["lock"]:
            s["accepted"] += 1
            n = s["sends"]
            message_id = f"{int(time.time() * 1000)}{n}"
            delivered = dict(apns.get("payload", {}))
            delivered["gcm.message_id"] = message_id
            delivered["google.c.a.e"] = "1"
            s["delivered"] = delivered
        return self.reply(200, {"name": f"projects/{s['project']}/messages/{message_id}"})


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--key", required=True)
    p.add_argument("--client-email", required=True)
    p.add_argument("--project", required=True)
    p.add_argument("--script")
    p.add_argument("--port", type=int, default=0)
    args = p.parse_args()
    with open(args.key, "rb") as f:
        public_key = serialization.load_pem_private_key(f.read(), password=None).public_key()
    script = {}
    if args.script:
        with open(args.script) as f:
            script.update(json.load(f))
    state = {"public_key": public_key, "email": args.client_email, "project": args.project,
             "fetches": 0, "sends": 0, "accepted": 0, "last": None, "last_body": None, "tokens": set(),
             "per_token": {}, "delivered": None, "script": script, "lock": threading.Lock(), "in_flight": 0, "max_concurrent": 0,
             "http2_requests": 0}
    asyncio.run(serve(state, args.port))


async def serve(state, port):
    # The socket is bound here so its port is known before hypercorn runs (PORT is printed first).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(256)
    bound = sock.getsockname()[1]

    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        path = scope["raw_path"].decode("latin-1") if scope.get("raw_path") else scope["path"]
        sending = path.endswith("/messages:send")
        with state["lock"]:
            if scope.get("http_version") == "2":
                state["http2_requests"] += 1
            if sending:
                state["in_flight"] += 1
                state["max_concurrent"] = max(state["max_concurrent"], state["in_flight"])
        request = Request(state, bound, scope["method"], path, headers, body)
        try:
            request.handle()
        finally:
            if sending:
                with state["lock"]:
                    state["in_flight"] -= 1
        status, answer_headers, answer = request.answer
        await send({"type": "http.response.start", "status": status,
                    "headers": [(k.encode(), v.encode()) for k, v in answer_headers + [("content-length", str(len(answer)))]]})
        await send({"type": "http.response.body", "body": answer})

    config = Config()
    config.bind = [f"fd://{sock.fileno()}"]
    config.accesslog = None
    config.errorlog = None
    config.keep_alive_max_requests = 1_000_000
    config.h2_max_concurrent_streams = 1000
    print(f"PORT {bound}", flush=True)
    await hypercorn.asyncio.serve(app, config)


if __name__ == "__main__":
    main()
