#!/usr/bin/env python3
"""Prints an APNs provider token (ES256 JWT) for KEY.p8, KEYID, TEAMID: for h2load's -H header."""
import base64
import json
import sys
import time

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


key_file, key_id, team_id = sys.argv[1:4]
with open(key_file, "rb") as f:
    key = serialization.load_pem_private_key(f.read(), password=None)
signing_input = b64(json.dumps({"alg": "ES256", "kid": key_id}).encode()) + "." + \
    b64(json.dumps({"iss": team_id, "iat": int(time.time())}).encode())
r, s = decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
print(signing_input + "." + b64(r.to_bytes(32, "big") + s.to_bytes(32, "big")))
