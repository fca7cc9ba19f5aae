#!/usr/bin/env python3
"""Posts realistic demo receipts to a running `richpush serve` (loopback only).

Six pushes go out a few seconds apart; each one's receipts arrive in a decaying burst, as a
fan-out to many devices does: mostly media attached, some text-only with a reason (timeout,
http_status, too_large, ...), a few duplicates (a retried receipt), and "opened" receipts from
the app a little later. Standard library only.

usage: scripts/demo-receipts.py [--url http://127.0.0.1:8080/v1/receipts] [--seconds 40]
"""
import argparse, random, threading, time, urllib.request, urllib.parse, math, queue

p = argparse.ArgumentParser()
p.add_argument("--url", default="http://127.0.0.1:8080/v1/receipts")
p.add_argument("--seconds", type=float, default=40.0)
p.add_argument("--seed", type=int, default=7)
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

events = []  # (at_seconds, fields)
span = args.seconds
for i, (pid, devices, mtype, mbytes, fail, open_rate) in enumerate(PUSHES):
    start = span * 0.08 + i * span * 0.13
    for d in range(devices):
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

threads = [threading.Thread(target=worker, daemon=True) for _ in range(8)]
for t in threads:
    t.start()
t0 = time.monotonic()
for at, f in events:
    delay = at - (time.monotonic() - t0)
    if delay > 0:
        time.sleep(delay)
    q.put(f)
for _ in threads:
    q.put(None)
for t in threads:
    t.join()
print(f"demo-receipts: posted {len(events)} receipts: {counts['202']} answered 202, {counts['other']} failed")
