#!/usr/bin/env python3
"""A mock of Google's OAuth2 token endpoint and FCM HTTP v1 messages:send, plain HTTP/1.1.

  POST /token                               verifies the RS256 service-account assertion against the
                                            public half of --key (iss, aud, scope, exp - iat <= 3600)
                                            and returns {"access_token", "expires_in": 3599}.
  POST /v1/projects/<project>/messages:send needs "Bearer <issued token>" (else 401); checks
                                            apns.payload.aps["mutable-content"] is the integer 1 when
                                            an image is named; a registration token starting with
                                            "unregistered" gets 404 UNREGISTERED; else 200 {"name"}.
  GET /stats                                {"token_fetches", "sends", "last_message"}.

Usage: mock_fcm.py --key RSA.pem --client-email E --project P   (prints "PORT n")
"""
import argparse
import base64
import json
import sys
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding


def b64(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, doc):
        body = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        s = self.server.state
        if self.path == "/stats":
            return self.reply(200, {"token_fetches": s["fetches"], "sends": s["sends"], "last_message": s["last"]})
        self.reply(404, {"error": {"code": 404, "status": "NOT_FOUND", "message": "no such path"}})

    def do_POST(self):
        s = self.server.state
        length = int(self.headers.get("content-length", "0"))
        body = self.rfile.read(length)
        if self.path == "/token":
            form = urllib.parse.parse_qs(body.decode())
            if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
                return self.reply(400, {"error": "unsupported_grant_type"})
            try:
                h, c, sig = form["assertion"][0].split(".")
                header, claims = json.loads(b64(h)), json.loads(b64(c))
                s["public_key"].verify(b64(sig), (h + "." + c).encode(), padding.PKCS1v15(), hashes.SHA256())
            except (KeyError, ValueError, InvalidSignature):
                return self.reply(400, {"error": "invalid_grant", "error_description": "Invalid JWT Signature."})
            expected_aud = f"http://127.0.0.1:{self.server.server_address[1]}/token"
            if (header.get("alg") != "RS256" or claims.get("iss") != s["email"] or claims.get("aud") != expected_aud
                    or claims.get("scope") != "https://www.googleapis.com/auth/firebase.messaging"
                    or claims.get("exp", 0) - claims.get("iat", 0) > 3600):
                return self.reply(400, {"error": "invalid_grant", "error_description": "Invalid JWT claims."})
            s["fetches"] += 1
            token = f"ya29.mock-{s['fetches']}"
            s["tokens"].add(token)
            return self.reply(200, {"access_token": token, "expires_in": 3599, "token_type": "Bearer"})
        if self.path == f"/v1/projects/{s['project']}/messages:send":
            auth = self.headers.get("authorization", "")
            if not auth.startswith("Bearer ") or auth[7:] not in s["tokens"]:
                return self.reply(401, {"error": {"code": 401, "status": "UNAUTHENTICATED", "message": "Request had invalid authentication credentials."}})
            message = json.loads(body).get("message", {})
            s["sends"] += 1
            s["last"] = message
            aps = message.get("apns", {}).get("payload", {}).get("aps", {})
            image = message.get("apns", {}).get("fcm_options", {}).get("image")
            if image and not (type(aps.get("mutable-content")) is int and aps.get("mutable-content") == 1):
                return self.reply(400, {"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": "mutable-content must be 1",
                                                  "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "INVALID_ARGUMENT"}]}})
            if str(message.get("token", "")).startswith("unregistered"):
                return self.reply(404, {"error": {"code": 404, "status": "NOT_FOUND", "message": "Requested entity was not found.",
                                                  "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"}]}})
            return self.reply(200, {"name": f"projects/{s['project']}/messages/{int(time.time() * 1000)}{s['sends']}"})
        self.reply(404, {"error": {"code": 404, "status": "NOT_FOUND", "message": "no such path"}})


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--key", required=True)
    p.add_argument("--client-email", required=True)
    p.add_argument("--project", required=True)
    args = p.parse_args()
    with open(args.key, "rb") as f:
        public_key = serialization.load_pem_private_key(f.read(), password=None).public_key()
    # Not socketserver's listen backlog of 5: a full backlog drops SYNs (clients retry after 1 s).
    ThreadingHTTPServer.request_queue_size = 256
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.state = {"public_key": public_key, "email": args.client_email, "project": args.project,
                    "fetches": 0, "sends": 0, "last": None, "tokens": set()}
    print(f"PORT {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
