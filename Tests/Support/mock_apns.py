#!/usr/bin/env python3
"""A mock APNs for tests and benchmarks: HTTP/2 over TLS (or cleartext h2c), Python h2 + asyncio.

It behaves like api.push.apple.com where tests need it to:
  * POST /3/device/<hex token>: checks the method, path, token format (even-length hex, >= 64),
    the headers (apns-topic, apns-push-type, apns-priority, apns-expiration, apns-collapse-id <= 64
    bytes, apns-id UUID, no duplicates), the payload (not empty, <= 4096 bytes, 5120 for voip), and
    the provider token: an ES256 JWT whose signature is verified against the public half of the .p8
    key, whose kid and iss match, and whose iat is less than one hour old (else ExpiredProviderToken).
  * Any documented status and reason on demand, by token: a script maps a token to a list of
    responses ({"status": 410, "reason": "Unregistered", "timestamp": ms}), used in order, the last
    one repeating. Give it with --script FILE or POST /control/script (JSON object, merged).
  * GET /stats: JSON counts: requests, accepted, connections (device_connections: those that
    carried /3/device requests), distinct provider tokens (jwts) and
    renewals (jwts - 1), requests per token, requests per apns-collapse-id (collapse_ids; "" = none), the payloads' push_id per token (per_token_push) and requests per media URL (media_urls: the payload's image-url or media-url; "" = none), the largest number of concurrent streams seen,
    streams a client opened past the advertised SETTINGS_MAX_CONCURRENT_STREAMS
    (stream_limit_violations; the connection is then closed, as a protocol error), and the last
    /3/device request body (last_body_b64, base64: the exact bytes).
  * Apple's stream limit: --initial-streams 1 --max-streams 1000 advertises
    SETTINGS_MAX_CONCURRENT_STREAMS = 1 on a new connection and raises it to 1000 once the first
    answer on that connection is sent (api.push.apple.com does this). Default: 1000 from the start.
  * --delay-ms N: each /3/device answer is sent N ms after its request ended (other streams are
    served meanwhile), as an APNs N ms away.
  * --never-answer: /3/device streams are accepted (headers, body), counted in "requests" and
    never answered, as an APNs that hangs; /stats still answers.
  * --goaway-after N: after the Nth answered /3/device stream on a connection, GOAWAY (NO_ERROR)
    is sent, as APNs does on idle, on a bad provider token or on shutdown. Its last-stream-id is
    the highest stream answered so far, raised by --goaway-keep K to keep the K lowest-numbered
    streams still open (with --delay-ms) in the processed part: those are answered after the
    GOAWAY (they count), the ones above the last-stream-id are never processed (not counted in
    requests or per_token; the client must retry them on a new connection). Once every kept
    stream is answered the connection is closed (1 s later, so no answer is lost to a TCP RST). /stats counts the GOAWAYs sent (goaways) and the
    streams they left unprocessed (goaway_refused); --goaway-connections M sends them on the
    first M connections only (default: every connection). --goaway-drop: the kept streams are
    processed (counted) but the connection is closed right after the GOAWAY without answering
    them, as an APNs that goes away mid-answer (goaway_dropped counts them, dropped_tokens lists
    their tokens).

  * Broadcast channels (iOS 18 Live Activities), following Apple's documents rule by rule (each
    rule below names its source; the client is never the reference):
    - --manage-port-out FILE starts a second listener, the channel management host, and writes its
      port to FILE before PORT is printed. Apple, "Sending channel management requests to APNs":
      channel requests go to their own host and port (api-manage-broadcast...:2195/2196), so /1/apps
      paths on the main port, and /4/broadcasts or /3/device on the management port, answer
      404 BadPath.
    - POST/GET/DELETE /1/apps/<bundle>/channels and GET /1/apps/<bundle>/all-channels, broadcasts
      POST /4/broadcasts/apps/<bundle>; reasons from Apple's "Handling error responses from Apple
      Push Notification service" (broadcast table). See answer_manage and answer_broadcast.
    - --max-channels N (default 10000, Apple: "up to 10,000 channels per app per environment"),
      --broadcast-disabled (every channel request answers FeatureNotEnabled),
      POST /control/channels {"bundle": B, "count": N, "policy": P} adds N channels at once (a test
      reaches the limit without 10,000 requests); the script's "channel:<id>" entries answer that
      channel's broadcasts as a token's entries answer its pushes. /stats adds channels, created_channels,
      broadcasts (per channel id) and last_broadcast_b64.

Usage: mock_apns.py --key AuthKey.p8 --key-id KEYID --team-id TEAMID [--topic T] [--ca-out CA.pem]
                    [--no-tls] [--script FILE] [--port 0] [--initial-streams N] [--max-streams N]
                    [--never-answer] [--delay-ms N] [--goaway-after N [--goaway-keep K]
                    [--goaway-connections M]] [--manage-port-out FILE [--max-channels N] [--broadcast-disabled]]
Prints "PORT n" first (then "CA path" when TLS is on).
"""
import argparse
import asyncio
import base64
import json
import re
import ssl
import sys
import time
import uuid

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.exceptions import InvalidSignature

PUSH_TYPES = {"alert", "background", "location", "voip", "complication", "fileprovider", "mdm",
              "liveactivity", "pushtotalk", "widgets", "controls"}
TOKEN_RE = re.compile(r"^[0-9a-fA-F]+$")
UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


class State:
    def __init__(self, args):
        self.args = args
        self.public_key = None
        if args.key:
            with open(args.key, "rb") as f:
                self.public_key = serialization.load_pem_private_key(f.read(), password=None).public_key()
        self.script = {}
        if args.script:
            with open(args.script) as f:
                self.script.update(json.load(f))
        self.jwt_cache = {}  # jwt -> (ok, reason, iat)
        self.jwts = []
        self.requests = 0
        self.accepted = 0
        self.connections = 0
        self.per_token = {}
        self.max_streams = 0
        self.device_connections = 0
        self.stream_limit_violations = 0
        self.last_body = None
        self.open_streams = 0
        self.peak_open_streams = 0
        self.goaways = 0
        self.goaway_refused = 0
        self.goaway_dropped = 0
        self.dropped_tokens = []
        self.collapse_ids = {}
        self.channels = {}  # bundle -> {channel id: policy}
        self.created_channels = 0
        self.broadcasts = {}  # channel id -> count accepted
        self.last_broadcast = None
        self.per_token_push = {}
        self.media_urls = {}

    def stats(self):
        return {"requests": self.requests, "accepted": self.accepted, "connections": self.connections,
                "device_connections": self.device_connections,
                "jwts": len(self.jwts), "renewals": max(0, len(self.jwts) - 1),
                "per_token": self.per_token, "max_concurrent_streams": self.max_streams,
                "stream_limit_violations": self.stream_limit_violations,
                "peak_open_streams": self.peak_open_streams,
                "goaways": self.goaways, "goaway_refused": self.goaway_refused, "goaway_dropped": self.goaway_dropped,
                "dropped_tokens": self.dropped_tokens,
                "collapse_ids": self.collapse_ids,
                "per_token_push": self.per_token_push, "media_urls": self.media_urls,
                "last_body_b64": self.last_body,
                "channels": sum(len(c) for c in self.channels.values()), "created_channels": self.created_channels,
                "broadcasts": self.broadcasts, "last_broadcast_b64": self.last_broadcast}

    def check_jwt(self, jwt):
        cached = self.jwt_cache.get(jwt)
        if cached is None:
            cached = self._verify(jwt)
            self.jwt_cache[jwt] = cached
            if cached[0]:
                self.jwts.append(jwt)
        ok, reason, iat = cached
        if ok and time.time() - iat > 3600:
            return "ExpiredProviderToken"
        return None if ok else reason

    def _verify(self, jwt):
        def b64(s):
            return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
        try:
            h, c, s = jwt.split(".")
            header = json.loads(b64(h))
            claims = json.loads(b64(c))
            sig = b64(s)
        except Exception:
            return (False, "InvalidProviderToken", 0)
        if header.get("alg") != "ES256" or len(sig) != 64:
            return (False, "InvalidProviderToken", 0)
        if self.args.key_id and header.get("kid") != self.args.key_id:
            return (False, "InvalidProviderToken", 0)
        if self.args.team_id and claims.get("iss") != self.args.team_id:
            return (False, "InvalidProviderToken", 0)
        iat = claims.get("iat")
        if not isinstance(iat, int):
            return (False, "InvalidProviderToken", 0)
        if self.public_key is not None:
            der = encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
            try:
                self.public_key.verify(der, (h + "." + c).encode(), ec.ECDSA(hashes.SHA256()))
            except InvalidSignature:
                return (False, "InvalidProviderToken", 0)
        return (True, None, iat)

    def scripted(self, token):
        entries = self.script.get(token)
        if not entries:
            return None
        return entries.pop(0) if len(entries) > 1 else entries[0]

    def authenticate(self, headers):
        """The provider token check shared by every APNs request: None, or (status, reason)."""
        names = [k for k, _ in headers]
        if len(names) != len(set(names)):
            return 400, "DuplicateHeaders"
        auth = dict(headers).get("authorization")
        if self.args.client_cert_out and auth is None:
            return None  # certificate auth: the TLS handshake already checked the client certificate
        if auth is None:
            return 403, "MissingProviderToken"
        if not auth.lower().startswith("bearer "):
            return 403, "InvalidProviderToken"
        problem = self.check_jwt(auth[7:].strip())
        return (403, problem) if problem else None

    def check_bundle(self, bundle):
        """The <bundle id> of a channel or broadcast path against --topic: None, or (status, reason)."""
        if bundle.endswith(".push-type.liveactivity"):
            # Apple (broadcast table): TopicDisallowed is "pushing to this topic is not allowed";
            # the path takes the app's bundle id, not the liveactivity topic.
            return 400, "TopicDisallowed"
        if self.args.topic and bundle != self.args.topic:
            # Apple (broadcast table): 403 TopicMismatch, "the bundle ID ... doesn't match" the token's or certificate's.
            return 403, "TopicMismatch"
        return None

    def channel_id_problem(self, h, bundle):
        """apns-channel-id of a read, delete or broadcast: None, or (status, reason)."""
        channel = h.get("apns-channel-id")
        if channel is None:
            return 400, "MissingChannelId"  # Apple: "The apns-channel-id header is missing."
        try:
            raw = base64.b64decode(channel, validate=True)
        except Exception:
            raw = b""
        if not raw or len(channel) > 64:
            return 400, "BadChannelId"  # Apple: "not properly encoded or exceeds the maximum length"
        if channel not in self.channels.get(bundle, {}):
            return 400, "ChannelNotRegistered"  # Apple: "The channel ID isn't registered."
        return None

    def answer_manage(self, method, path, headers, body):
        """The channel management host. Apple, "Sending channel management requests to APNs"."""
        m = re.match(r"^/1/apps/([^/?]+)/(channels|all-channels)$", path)
        if not m:
            return 404, "BadPath", {}
        bundle, what = m.group(1), m.group(2)
        allowed = ("POST", "GET", "DELETE") if what == "channels" else ("GET",)
        if method not in allowed:
            return 405, "MethodNotAllowed", {}  # Apple: create POST, read GET, delete DELETE, list GET
        self.requests += 1
        h = dict(headers)
        problem = self.authenticate(headers) or self.check_bundle(bundle)
        if problem:
            return problem[0], problem[1], {}
        if self.args.broadcast_disabled:
            return 400, "FeatureNotEnabled", {}  # Apple: broadcast capability not enabled for the topic
        request_id = h.get("apns-request-id") or str(uuid.uuid4())
        if not UUID_RE.match(request_id):
            return 400, "BadMessageId", {}  # Apple: apns-request-id is a UUID (8-4-4-4-12)
        echo = [("apns-request-id", request_id)]
        channels = self.channels.setdefault(bundle, {})
        if what == "all-channels":
            # Apple: 200 and {"channels": [ids]}.
            return 200, None, {"body": {"channels": list(channels)}, "headers": echo}
        if method == "POST":
            # Apple: body {"message-storage-policy": 0|1, "push-type": "LiveActivity"}; 201 with apns-channel-id.
            if not body:
                return 400, "PayloadEmpty", {}
            try:
                doc = json.loads(body)
            except Exception:
                return 400, "BadRequestPayload", {}
            if not isinstance(doc, dict):
                return 400, "BadRequestPayload", {}
            if set(doc) - {"message-storage-policy", "push-type"}:
                return 400, "BadRequestParams", {}  # Apple: "an unrecognizable attribute"
            if "push-type" not in doc:
                return 400, "MissingPushType", {}
            if doc["push-type"] != "LiveActivity":
                return 400, "InvalidPushType", {}
            policy = doc.get("message-storage-policy", 0)
            if policy not in (0, 1) or isinstance(policy, bool):
                return 400, "BadRequestParams", {}
            if len(channels) >= self.args.max_channels:
                return 400, "CannotCreateChannelConfig", {}  # Apple: at most 10,000 channels per app and environment
            channel = base64.b64encode(uuid.uuid4().bytes).decode()
            channels[channel] = policy
            self.created_channels += 1
            return 201, None, {"headers": echo + [("apns-channel-id", channel)]}
        problem = self.channel_id_problem(h, bundle)
        if problem:
            return problem[0], problem[1], {}
        channel = h["apns-channel-id"]
        if method == "GET":
            # Apple: 200 and {"message-storage-policy": P, "push-type": "LiveActivity"}.
            return 200, None, {"body": {"message-storage-policy": channels[channel], "push-type": "LiveActivity"}, "headers": echo}
        del channels[channel]
        return 204, None, {"headers": echo}  # Apple: delete answers 204

    def answer_broadcast(self, method, bundle, headers, body):
        """POST /4/broadcasts/apps/<bundle>. Apple, "Sending broadcast push notification requests to APNs"."""
        if method != "POST":
            return 405, "MethodNotAllowed", {}
        self.requests += 1
        h = dict(headers)
        problem = self.authenticate(headers) or self.check_bundle(bundle)
        if problem:
            return problem[0], problem[1], {}
        if self.args.broadcast_disabled:
            return 400, "FeatureNotEnabled", {}
        request_id = h.get("apns-request-id") or str(uuid.uuid4())
        if not UUID_RE.match(request_id):
            return 400, "BadMessageId", {}
        problem = self.channel_id_problem(h, bundle)
        if problem:
            return problem[0], problem[1], {}
        channel = h["apns-channel-id"]
        if "apns-push-type" not in h:
            return 400, "MissingPushType", {}
        if h["apns-push-type"] != "liveactivity":
            return 400, "InvalidPushType", {}  # Apple: broadcasts carry Live Activity updates only
        if h.get("apns-priority") not in ("1", "5", "10"):
            return 400, "BadPriority", {}  # Apple: apns-priority 10, 5 or 1 (required)
        expiration = h.get("apns-expiration")
        if expiration is None or not expiration.isdigit():
            return 400, "BadExpirationDate", {}  # Apple: apns-expiration, a UNIX time (required)
        if self.channels[bundle][channel] == 0 and int(expiration) != 0:
            # Apple: on a channel with message-storage-policy 0 "set apns-expiration to 0", else BadExpirationDate.
            return 400, "BadExpirationDate", {}
        if not body:
            return 400, "PayloadEmpty", {}
        if len(body) > 5120:
            return 413, "PayloadTooLarge", {}  # Apple: a broadcast payload is at most 5 KB (5,120 bytes)
        step = self.scripted("channel:" + channel)  # a test's scripted answers, as for tokens
        if step and int(step.get("status", 200)) != 200:
            return int(step["status"]), step.get("reason"), {"headers": [("apns-request-id", request_id)]}
        self.broadcasts[channel] = self.broadcasts.get(channel, 0) + 1
        self.last_broadcast = base64.b64encode(body).decode()
        self.accepted += 1
        return 200, None, {"headers": [("apns-request-id", request_id), ("apns-unique-id", str(uuid.uuid4()))]}

    def answer(self, method, path, headers, body, role="apns"):
        """Returns (status, reason, extra) for one request."""
        if path == "/stats" and method == "GET":
            return 200, None, {"body": self.stats()}
        if path == "/control/script" and method == "POST":
            self.script.update(json.loads(body or b"{}"))
            return 200, None, {"body": {"ok": True}}
        if path == "/control/channels" and method == "POST":
            doc = json.loads(body or b"{}")
            channels = self.channels.setdefault(doc.get("bundle", self.args.topic or "com.example.app"), {})
            for _ in range(int(doc.get("count", 0))):
                channels[base64.b64encode(uuid.uuid4().bytes).decode()] = int(doc.get("policy", 0))
            return 200, None, {"body": {"channels": len(channels)}}
        if role == "manage":
            return self.answer_manage(method, path, headers, body)
        b = re.match(r"^/4/broadcasts/apps/([^/?]+)$", path)
        if b:
            return self.answer_broadcast(method, b.group(1), headers, body)
        m = re.match(r"^/3/device/([^/?]*)$", path)
        if not m:
            return 404, "BadPath", {}
        if method != "POST":
            return 405, "MethodNotAllowed", {}
        self.requests += 1
        token = m.group(1)
        if not token:
            return 400, "MissingDeviceToken", {}
        self.per_token[token] = self.per_token.get(token, 0) + 1
        self.last_body = base64.b64encode(body).decode()
        collapse = dict(headers).get("apns-collapse-id", "")
        self.collapse_ids[collapse] = self.collapse_ids.get(collapse, 0) + 1
        # Which push (its payload's push_id) each token got, and each media URL's count ("" = none).
        try:
            doc = json.loads(body or b"{}")
        except ValueError:
            doc = {}
        if isinstance(doc, dict):
            self.per_token_push.setdefault(token, []).append(str(doc.get("push_id", "")))
            media = doc.get("image-url", doc.get("media-url", ""))
            media = media if isinstance(media, str) else json.dumps(media)
            self.media_urls[media] = self.media_urls.get(media, 0) + 1
        names = [k for k, _ in headers]
        if len(names) != len(set(names)):
            return 400, "DuplicateHeaders", {}
        h = dict(headers)
        auth = h.get("authorization")
        if self.args.client_cert_out and auth is None:
            pass  # certificate auth: the TLS handshake already checked the client certificate
        elif auth is None:
            return 403, "MissingProviderToken", {}
        elif not auth.lower().startswith("bearer "):
            return 403, "InvalidProviderToken", {}
        else:
            problem = self.check_jwt(auth[7:].strip())
            if problem:
                return 403, problem, {}
        if len(token) < 64 or len(token) % 2 or not TOKEN_RE.match(token):
            return 400, "BadDeviceToken", {}
        topic = h.get("apns-topic")
        if not topic:
            return 400, "MissingTopic", {}
        push_type = h.get("apns-push-type", "alert")
        # Apple ("Sending notification requests to APNs", apns-topic): a Live Activity push goes to
        # <bundle id>.push-type.liveactivity.
        expected = self.args.topic + ".push-type.liveactivity" if self.args.topic and push_type == "liveactivity" else self.args.topic
        if expected and topic != expected:
            return 400, "TopicDisallowed", {}
        if push_type not in PUSH_TYPES:
            return 400, "InvalidPushType", {}
        if "apns-priority" in h and h["apns-priority"] not in ("1", "5", "10"):
            return 400, "BadPriority", {}
        if "apns-expiration" in h and not h["apns-expiration"].isdigit():
            return 400, "BadExpirationDate", {}
        if "apns-collapse-id" in h and len(h["apns-collapse-id"].encode()) > 64:
            return 400, "BadCollapseId", {}
        if "apns-id" in h and not UUID_RE.match(h["apns-id"]):
            return 400, "BadMessageId", {}
        if not body:
            return 400, "PayloadEmpty", {}
        limit = 5120 if push_type == "voip" else 4096
        if len(body) > limit:
            return 413, "PayloadTooLarge", {}
        step = self.scripted(token)
        if step:
            status = int(step.get("status", 200))
            if status != 200:
                extra = {}
                if "timestamp" in step:
                    extra["timestamp"] = step["timestamp"]
                return status, step.get("reason"), extra
        self.accepted += 1
        return 200, None, {}


class H2Protocol(asyncio.Protocol):
    def __init__(self, state, role="apns"):
        self.state = state
        self.role = role
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        self.streams = {}
        self.transport = None
        self.used = False
        self.raised = False
        self.answered_device = 0
        # The last-stream-id of the GOAWAY sent on this connection (None: not sent).
        self.goaway_last = None
        self.goaway_allowed = False
        self.closing = False
        # Streams whose request ended and whose answer is scheduled (--delay-ms).
        self.waiting = set()

    def connection_made(self, transport):
        self.transport = transport
        self.state.connections += 1
        limit = self.state.args.goaway_connections
        self.goaway_allowed = self.state.args.goaway_after > 0 and (limit == 0 or self.state.connections <= limit)
        self.conn.local_settings = h2.settings.Settings(client=False, initial_values={
            h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: self.state.args.initial_streams or self.state.args.max_streams,
            h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1 << 20,
        })
        self.conn.initiate_connection()
        self.conn.increment_flow_control_window(1 << 24)
        self.transport.write(self.conn.data_to_send())

    def connection_lost(self, exc):
        self.state.open_streams -= len(self.streams)
        self.streams.clear()

    def data_received(self, data):
        try:
            events = self.conn.receive_data(data)
        except h2.exceptions.TooManyStreamsError as error:
            # More streams than SETTINGS_MAX_CONCURRENT_STREAMS allows: count it, drop the connection.
            self.state.stream_limit_violations += 1
            print(f"mock_apns: stream limit exceeded: {error!r}", file=sys.stderr, flush=True)
            self.transport.close()
            return
        except Exception as error:  # a protocol error: say so, drop the connection
            print(f"mock_apns: connection error: {error!r}", file=sys.stderr, flush=True)
            self.transport.close()
            return
        ended = []
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                self.streams[event.stream_id] = (event.headers, bytearray())
                self.state.open_streams += 1
                self.state.peak_open_streams = max(self.state.peak_open_streams, self.state.open_streams)
            elif isinstance(event, h2.events.DataReceived):
                if event.stream_id in self.streams:
                    self.streams[event.stream_id][1].extend(event.data)
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                ended.append(event.stream_id)
            elif isinstance(event, h2.events.StreamReset):
                # The client gave the stream up: nothing to answer.
                if self.streams.pop(event.stream_id, None) is not None:
                    self.state.open_streams -= 1
                self.waiting.discard(event.stream_id)
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.transport.close()
        # Streams open at once on this connection (requests that arrived together, multiplexed).
        self.state.max_streams = max(self.state.max_streams, len(self.streams))
        answered = False
        for stream_id in ended:
            if self.goaway_last is not None and stream_id > self.goaway_last:
                self.refuse(stream_id)  # opened after our GOAWAY: never processed
                continue
            device = dict(self.streams[stream_id][0]).get(":path", "").startswith("/3/device/")
            if self.state.args.never_answer and device:
                self.state.requests += 1  # counted, accepted, never answered (the stream stays open)
                continue
            if device and self.state.args.delay_ms > 0:
                # APNs tens of ms away: answer this stream later, other streams meanwhile.
                self.waiting.add(stream_id)
                asyncio.get_running_loop().call_later(self.state.args.delay_ms / 1000, self.respond_later, stream_id)
                continue
            self.respond(stream_id)
            answered = True
        self.flush(answered)

    def respond_later(self, stream_id):
        if self.transport is None or self.transport.is_closing() or stream_id not in self.streams:
            return
        self.respond(stream_id)
        self.flush(True)

    def refuse(self, stream_id):
        """A stream above the GOAWAY's last-stream-id: dropped unprocessed."""
        if stream_id in self.streams:
            self.state.open_streams -= 1
            del self.streams[stream_id]
            self.state.goaway_refused += 1

    def goaway(self, answered_id):
        """GOAWAY after the Nth answer: streams up to the last-stream-id are still answered."""
        open_ids = sorted(self.streams)
        keep = open_ids[:self.state.args.goaway_keep]
        last = max([answered_id] + keep)
        self.goaway_last = last
        self.state.goaways += 1
        above = [s for s in open_ids if s > last]
        for stream_id in above:
            self.refuse(stream_id)
        # Written by hand (type 0x7, stream 0, last-stream-id, NO_ERROR): h2 refuses to send
        # anything after its own close_connection(), and the kept streams must still be answered.
        pending = self.conn.data_to_send()
        if pending:
            self.transport.write(pending)
        self.transport.write(b"\x00\x00\x08\x07\x00\x00\x00\x00\x00" + last.to_bytes(4, "big") + b"\x00\x00\x00\x00")
        if self.state.args.goaway_drop:
            # Processed, never answered: the connection ends now.
            for stream_id in sorted(s for s in self.waiting if s <= last):
                headers, body = self.streams.pop(stream_id)
                self.state.open_streams -= 1
                pseudo = {k: v for k, v in headers if k.startswith(":")}
                self.state.answer(pseudo.get(":method"), pseudo.get(":path", ""), [(k, v) for k, v in headers if not k.startswith(":")], bytes(body))
                self.state.goaway_dropped += 1
                self.state.dropped_tokens.append(pseudo.get(":path", "").rsplit("/", 1)[-1])
            self.waiting.clear()
            self.transport.close()
        print(f"mock_apns: GOAWAY last_stream_id={last}, {len(above)} open stream(s) above it refused",
              file=sys.stderr, flush=True)

    def flush(self, answered):
        if self.transport.is_closing():
            return
        if self.goaway_last is not None:
            out = self.conn.data_to_send()
            if out:
                self.transport.write(out)
            if not any(s <= self.goaway_last for s in self.streams) and not self.closing:
                # Every kept stream answered: the connection ends, after a grace period. Closed at
                # once, a socket with unread bytes from the client (frames sent before it saw the
                # GOAWAY) makes the kernel send RST, and the client may lose the last answers
                # still in its receive buffer: requests processed here would look unanswered.
                self.closing = True
                asyncio.get_running_loop().call_later(1.0, self.transport.close)
            return
        if answered and not self.raised and self.state.args.initial_streams:
            # The first answer on this connection went out: raise the limit, as Apple does.
            self.raised = True
            self.conn.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: self.state.args.max_streams})
        out = self.conn.data_to_send()
        if out:
            self.transport.write(out)

    def respond(self, stream_id):
        self.waiting.discard(stream_id)
        if stream_id in self.streams:
            self.state.open_streams -= 1
        headers, body = self.streams.pop(stream_id, ([], bytearray()))
        pseudo = {k: v for k, v in headers if k.startswith(":")}
        regular = [(k, v) for k, v in headers if not k.startswith(":")]
        if pseudo.get(":path", "").startswith("/3/device/") and not self.used:
            self.used = True
            self.state.device_connections += 1
        status, reason, extra = self.state.answer(pseudo.get(":method"), pseudo.get(":path", ""), regular, bytes(body), self.role)
        out_headers = [(":status", str(status))]
        if "headers" in extra:
            out_headers += extra["headers"]
        else:
            out_headers.append(("apns-id", dict(regular).get("apns-id") or str(uuid.uuid4())))
        if "body" in extra:
            payload = json.dumps(extra["body"]).encode()
        elif status != 200:
            doc = {"reason": reason} if reason else {}
            if "timestamp" in extra:
                doc["timestamp"] = extra["timestamp"]
            payload = json.dumps(doc).encode()
        else:
            payload = b""
        if status in (201, 204):
            payload = b""
        if payload:
            out_headers.append(("content-type", "application/json"))
            self.conn.send_headers(stream_id, out_headers)
            size = self.conn.max_outbound_frame_size
            chunks = [payload[i:i + size] for i in range(0, len(payload), size)]
            for i, chunk in enumerate(chunks):
                self.conn.send_data(stream_id, chunk, end_stream=(i == len(chunks) - 1))
        else:
            self.conn.send_headers(stream_id, out_headers, end_stream=True)
        if pseudo.get(":path", "").startswith("/3/device/"):
            self.answered_device += 1
            if self.goaway_allowed and self.goaway_last is None and self.answered_device == self.state.args.goaway_after:
                self.goaway(stream_id)


async def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--key", help="the .p8 key whose public half verifies the JWT")
    p.add_argument("--key-id")
    p.add_argument("--team-id")
    p.add_argument("--topic")
    p.add_argument("--script")
    p.add_argument("--ca-out", help="write the throwaway CA's PEM here")
    p.add_argument("--no-tls", action="store_true")
    p.add_argument("--client-cert-out", help="certificate auth: require a client certificate signed by the "
                   "throwaway CA, write one (certificate + key, PEM) here, and skip the JWT checks")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--initial-streams", type=int, default=0,
                   help="SETTINGS_MAX_CONCURRENT_STREAMS of a new connection, raised to --max-streams after "
                   "its first answer (Apple's APNs starts at 1); 0: --max-streams from the start")
    p.add_argument("--max-streams", type=int, default=1000, help="SETTINGS_MAX_CONCURRENT_STREAMS (default 1000)")
    p.add_argument("--never-answer", action="store_true", help="accept /3/device streams and never answer them")
    p.add_argument("--delay-ms", type=int, default=0,
                   help="answer each /3/device request this many ms after it arrived (APNs' latency); 0: at once")
    p.add_argument("--goaway-after", type=int, default=0,
                   help="send GOAWAY after this many answered /3/device streams on a connection; 0: never")
    p.add_argument("--goaway-keep", type=int, default=0,
                   help="with --goaway-after: also process the K lowest streams still open (answered after the GOAWAY)")
    p.add_argument("--goaway-drop", action="store_true",
                   help="with --goaway-after: process the kept streams but close the connection without answering them")
    p.add_argument("--goaway-connections", type=int, default=0,
                   help="with --goaway-after: only on the first M connections; 0: on every connection")
    p.add_argument("--manage-port-out",
                   help="also serve the channel management host on its own port, written to this file before PORT")
    p.add_argument("--max-channels", type=int, default=10000, help="channels per app (Apple: 10,000)")
    p.add_argument("--broadcast-disabled", action="store_true", help="channel and broadcast requests answer FeatureNotEnabled")
    args = p.parse_args()
    state = State(args)
    context = None
    if not args.no_tls:
        import trustme
        ca = trustme.CA()
        cert = ca.issue_cert("127.0.0.1", "localhost")
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        cert.configure_cert(context)
        context.set_alpn_protocols(["h2"])
        if args.client_cert_out:
            ca.issue_cert("richpush-provider@example.com").private_key_and_cert_chain_pem.write_to_path(args.client_cert_out)
            ca.configure_trust(context)
            context.verify_mode = ssl.CERT_REQUIRED
        ca_path = args.ca_out or "mock-apns-ca.pem"
        ca.cert_pem.write_to_path(ca_path)
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: H2Protocol(state), "127.0.0.1", args.port, ssl=context)
    port = server.sockets[0].getsockname()[1]
    if args.manage_port_out:
        manage = await loop.create_server(lambda: H2Protocol(state, "manage"), "127.0.0.1", 0, ssl=context)
        with open(args.manage_port_out + ".tmp", "w") as f:
            f.write(str(manage.sockets[0].getsockname()[1]))
        import os
        os.replace(args.manage_port_out + ".tmp", args.manage_port_out)
    print(f"PORT {port}", flush=True)
    if context is not None:
        print(f"CA {ca_path}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
