#!/usr/bin/env python3
"""Posts realistic demo receipts to a running `richpush serve` (loopback only).

Six pushes go out a few seconds apart; each one's receipts arrive in a decaying burst, as a
fan-out to many devices does: mostly media attached, some text-only with a reason (timeout,
http_status, too_large, ...), a few duplicates (a retried receipt), and "opened" receipts from
the app a little later. Standard library only.

With --admin-token (and a server started with APNs settings, e.g. pointed at
Tests/Support/mock_apns.py), each push is first sent with POST /v1/pushes to one device token
per device, so the dashboard's funnel shows sent -> accepted -> delivered -> opened; only
devices whose token APNs accepted then post receipts. --write-apns-script FILE writes the
mock's script (the tokens it answers 410 Unregistered or 400 BadDeviceToken) and exits.
--image-host URL: each push's image is a real file there (IMAGES: a JPEG, WebPs, a HEIC, a heavy
JPEG, a 404), checked by the server before sending (and optimised with its media edge), with
"on_media_error": "send_text"; without it the images are placeholders and the check is off.

usage: scripts/demo-receipts.py [--url http://127.0.0.1:8080/v1/receipts] [--seconds 40]
                                [--admin-token TOKEN [--image-host URL]] [--write-apns-script FILE]
"""
import argparse, json, random, threading, time, urllib.error, urllib.request, urllib.parse, math, queue

p = argparse.ArgumentParser()
p.add_argument("--url", default="http://127.0.0.1:8080/v1/receipts")
p.add_argument("--seconds", type=float, default=40.0)
p.add_argument("--seed", type=int, default=7)
p.add_argument("--admin-token", help="send each push with POST /v1/pushes first (same server)")
p.add_argument("--image-host", help="https URL serving IMAGES' files (/f/NAME): the server checks them at send")
p.add_argument("--write-apns-script", metavar="FILE", help="write mock_apns.py's token script and exit")
args = p.parse_args()
rng = random.Random(args.seed)

PUSHES = [  # push_id, devices, media kind, media bytes, failure rate, open rate
    ("2018001", 1800, "public.jpeg", 89_696, 0.08, 0.31),
    ("2018002", 1200, "public.png", 412_330, 0.12, 0.22),
    ("spring-sale", 2400, "public.mpeg-4", 7_340_112, 0.27, 0.18),
    ("2018004", 900, "public.mp3", 1_204_555, 0.10, 0.12),
    ("news-0412", 1500, "com.compuserve.gif", 2_950_001, 0.15, 0.26),
    ("2018006", 700, "public.jpeg", 230_881, 0.06, 0.35),
]
REASONS = [("timeout", 30), ("http_status", 18), ("too_large", 12), ("unsupported_format", 10),
           ("not_media", 8), ("network", 9), ("insecure_scheme", 5), ("bad_url", 3), ("no_media", 5)]

def pick_reason():
    total = sum(w for _, w in REASONS)
    x = rng.uniform(0, total)
    for r, w in REASONS:
        x -= w
        if x <= 0:
            return r
    return REASONS[-1][0]

def token(pid, d):
    """The demo device token of device d of a push: 64 hex digits."""
    return (pid.encode().hex() + f"{d:08x}").rjust(64, "0")[-64:]

# Tokens APNs refuses: about 3% inactive (410), 1% bad; the same for every run (own seed).
refusals = random.Random(args.seed + 1)
REFUSED = {}
for pid, devices, *_ in PUSHES:
    for d in range(devices):
        x = refusals.random()
        if x < 0.03:
            REFUSED[token(pid, d)] = [{"status": 410, "reason": "Unregistered", "timestamp": 1764000000000}]
        elif x < 0.04:
            REFUSED[token(pid, d)] = [{"status": 400, "reason": "BadDeviceToken"}]
if args.write_apns_script:
    with open(args.write_apns_script, "w") as f:
        json.dump(REFUSED, f)
    raise SystemExit(0)

# The file each push's image is on --image-host (probe_media_server.py's /f/NAME; gone.jpg is a 404).
IMAGES = {"2018001": "photo.jpg", "2018002": "sticker.webp", "spring-sale": "spring-sale.webp",
          "2018004": "large.jpg", "news-0412": "gone.jpg", "2018006": "photo.heic"}

TITLES = {"2018001": "Today's photo", "2018002": "New stickers", "spring-sale": "Spring sale: 30% off",
          "2018004": "Your weekly mix", "news-0412": "Morning news", "2018006": "A photo for you"}

events = []  # (at_seconds, fields); fields None = send the push with POST /v1/pushes
span = args.seconds
for i, (pid, devices, mtype, mbytes, fail, open_rate) in enumerate(PUSHES):
    start = span * 0.08 + i * span * 0.13
    if args.admin_token:
        events.append((max(0, start - 1.0), {"send": pid, "devices": devices}))
    for d in range(devices):
        if args.admin_token and (token(pid, d) in REFUSED or rng.random() < 0.07):
            continue  # APNs refused the token, or the device was off until the push expired
        at = start + rng.expovariate(1 / (span * 0.06))
        if at > span:
            continue
        rid = f"{pid}-dev{d:05d}"
        f = {"push_id": pid, "receipt_id": rid}
        if rng.random() < fail:
            reason = pick_reason()
            f.update(outcome="text_only" if reason != "no_media" or rng.random() < .5 else "original", reason=reason)
            f["elapsed_ms"] = rng.randint(25_000, 29_500) if reason == "timeout" else int(rng.lognormvariate(math.log(600), 0.8))
        else:
            f.update(outcome="media_attached", media_type=mtype, media_bytes=int(mbytes * rng.uniform(0.97, 1.0)))
            f["elapsed_ms"] = min(29_000, int(rng.lognormvariate(math.log(380 if mbytes < 1e6 else 2400), 0.7)))
        events.append((at, f))
        if rng.random() < 0.05:  # the extension retried: same receipt_id, counted once
            events.append((at + rng.uniform(0.2, 3), dict(f)))
        if rng.random() < open_rate:
            events.append((min(span, at + rng.expovariate(1 / 4)), {"push_id": pid, "receipt_id": rid, "event": "opened"}))
events.sort(key=lambda e: e[0])

q = queue.Queue()
counts = {"202": 0, "other": 0}
lock = threading.Lock()
def worker():
    while True:
        item = q.get()
        if item is None:
            return
        body = urllib.parse.urlencode(item).encode()
        req = urllib.request.Request(args.url, data=body, headers={"User-Agent": "RichPushDemo/1.0 (iPhone; iOS 17.4)"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                ok = r.status == 202
        except Exception:
            ok = False
        with lock:
            counts["202" if ok else "other"] += 1

sent = {}
def send(pid, devices):
    """POST /v1/pushes for one push to all its devices' tokens (the mock APNs answers)."""
    url = args.url.rsplit("/v1/", 1)[0] + "/v1/pushes"
    push = {"push_id": pid, "tokens": [token(pid, d) for d in range(devices)], "title": TITLES.get(pid, pid), "body": "Tap to see it."}
    if args.image_host:
        push.update({"image": f"{args.image_host}/f/{IMAGES[pid]}", "on_media_error": "send_text"})
    else:
        # media.example.com does not answer: the send-time media check is off for these.
        push.update({"image": f"https://media.example.com/{pid}.jpg", "media": "off"})
    body = json.dumps(push).encode()
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json",
                                                          "Authorization": f"Bearer {args.admin_token}"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            answer = json.load(r)
            sent[pid] = f"{pid}: sent {answer.get('sent')}, accepted {answer.get('accepted')}"
    except urllib.error.HTTPError as e:
        sent[pid] = f"{pid}: POST /v1/pushes answered {e.code}: {e.read()[:300].decode(errors='replace')}"
    except Exception as e:
        sent[pid] = f"{pid}: POST /v1/pushes failed: {e}"

threads = [threading.Thread(target=worker, daemon=True) for _ in range(8)]
for t in threads:
    t.start()
senders = []
t0 = time.monotonic()
for at, f in events:
    delay = at - (time.monotonic() - t0)
    if delay > 0:
        time.sleep(delay)
    if "send" in f:
        senders.append(threading.Thread(target=send, args=(f["send"], f["devices"]), daemon=True))
        senders[-1].start()
    else:
        q.put(f)
for t in senders:
    t.join()
for _ in threads:
    q.put(None)
for t in threads:
    t.join()
for line in sent.values():
    print(f"demo-receipts: {line}")
receipts = sum(1 for _, f in events if "send" not in f)
print(f"demo-receipts: posted {receipts} receipts: {counts['202']} answered 202, {counts['other']} failed")
