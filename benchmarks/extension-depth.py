#!/usr/bin/env python3
"""Extension depth benchmark (issue 6): what the media cache, concurrent attachments and
decryption cost or save, measured as `richpush simulate`'s own elapsedMs (median of N runs).

1. Cache: photo.jpg (89,696 B) over a slow link (200 KB/s, as a phone on a poor network) fetched
   from the network, against the same notification served from the media cache (`--cache`).
   Article 002 says a cache turns a full download into a local copy; goal: a hit under 10% of
   the network time.
2. Several attachments: three files over the slow link (photo.jpg, progressive.jpg, chime.mp3)
   in one notification, fetched concurrently, against the sum of the three fetched one per
   notification. Goal: concurrent time <= 60% of the sum (the slowest file, not all three).
3. Decryption: an encrypted payload (`enc`, AES-256-GCM) with no media, against the same
   text in the clear. Goal: overhead <= 2 ms.

Usage: python3 benchmarks/extension-depth.py [--runs N] [--binary PATH]
Uses .build/release/richpush when present, else .build/debug/richpush (built if missing).
"""
import argparse, base64, json, os, shutil, statistics, subprocess, sys, tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
RATE = 200_000


def simulate(binary, payload, extra):
    out = subprocess.run([binary, "simulate", payload, "--json", "--allow-http-host", "127.0.0.1"] + extra,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[0])


def write(dirname, name, obj):
    path = os.path.join(dirname, name)
    with open(path, "w") as f:
        json.dump(obj, f)
    return path


def median_ms(runs, fn):
    values = [fn() for _ in range(runs)]
    return statistics.median(values)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--binary")
    args = parser.parse_args()
    binary = args.binary
    if not binary:
        for config in ("release", "debug"):
            candidate = os.path.join(ROOT, ".build", config, "richpush")
            if os.path.exists(candidate):
                binary = candidate
                break
    if not binary:
        subprocess.run(["swift", "build", "--product", "richpush"], cwd=ROOT, check=True)
        binary = os.path.join(ROOT, ".build", "debug", "richpush")

    server = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests/Support/depth_server.py")],
                              stdout=subprocess.PIPE, text=True)
    port = int(server.stdout.readline().split()[1])
    base = f"http://127.0.0.1:{port}/media"
    work = tempfile.mkdtemp(prefix="richpush-depth-bench-")
    try:
        aps = {"alert": {"title": "Order shipped", "body": "Your order 1042 is on its way"}, "mutable-content": 1}
        slow = lambda name: f"{base}/{name}?rate={RATE}&cc=max-age%3D3600"

        # 1. Cache: network (fresh cache each run) vs hit (warm cache).
        photo = write(work, "photo.json", {"aps": aps, "media-url": slow("photo.jpg")})
        def network():
            cache = tempfile.mkdtemp(dir=work)
            r = simulate(binary, photo, ["--cache", cache])
            assert r["details"]["media"]["cacheHits"] == 0 and r["outcome"] == "media_attached", r
            return r["elapsedMs"]
        warm = os.path.join(work, "warm")
        simulate(binary, photo, ["--cache", warm])
        def hit():
            r = simulate(binary, photo, ["--cache", warm])
            assert r["details"]["media"]["cacheHits"] == 1 and r["outcome"] == "media_attached", r
            return r["elapsedMs"]
        net_ms, hit_ms = median_ms(args.runs, network), median_ms(args.runs, hit)

        # 2. Three attachments at once vs one per notification.
        names = ["photo.jpg", "progressive.jpg", "chime.mp3"]
        three = write(work, "three.json", {"aps": aps, "media-url": [slow(n) for n in names]})
        singles = [write(work, f"single-{n}.json", {"aps": aps, "media-url": slow(n)}) for n in names]
        def together():
            r = simulate(binary, three, [])
            assert r["details"]["media"]["attached"] == 3, r
            return r["elapsedMs"]
        def one_by_one():
            return sum(simulate(binary, s, [])["elapsedMs"] for s in singles)
        together_ms, sum_ms = median_ms(args.runs, together), median_ms(args.runs, one_by_one)

        # 3. Decryption overhead (no media: the pipeline's own work only).
        key = base64.b64encode(os.urandom(32)).decode()
        keys = write(work, "keys.json", {"k-2": key})
        plaintext = write(work, "pt.json", {"title": "Order shipped", "body": "Your order 1042 is on its way", "push_id": "b-1"})
        base_payload = write(work, "base.json", {"aps": {"alert": "New message", "mutable-content": 1}})
        enc = subprocess.run([binary, "encrypt", "--key", keys, "--kid", "k-2", plaintext, "--payload", base_payload],
                             capture_output=True, text=True, check=True).stdout
        encrypted = os.path.join(work, "enc.json")
        with open(encrypted, "w") as f:
            f.write(enc)
        clear = write(work, "clear.json", {"aps": aps, "push_id": "b-1"})
        def decrypting():
            r = simulate(binary, encrypted, ["--keys", keys])
            assert r["details"]["decryption"] == "decrypted", r
            return r["elapsedMs"]
        dec_ms = median_ms(args.runs, decrypting)
        clear_ms = median_ms(args.runs, lambda: simulate(binary, clear, [])["elapsedMs"])
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)

    print(f"binary: {os.path.relpath(binary, ROOT)}, median of {args.runs} runs, slow link {RATE // 1000} KB/s")
    print(f"1. photo.jpg from the network: {net_ms} ms; from the cache: {hit_ms} ms; ratio {hit_ms / max(net_ms, 1):.3f} (goal < 0.10)")
    print(f"2. three attachments at once: {together_ms} ms; one per notification, summed: {sum_ms} ms; "
          f"ratio {together_ms / max(sum_ms, 1):.3f} (goal <= 0.60)")
    print(f"3. encrypted payload: {dec_ms} ms; clear payload: {clear_ms} ms; overhead {dec_ms - clear_ms:+} ms (goal <= 2 ms)")


if __name__ == "__main__":
    main()
