#!/usr/bin/env python3
"""What a message from a person costs the extension (issue 30): `richpush simulate` (release build,
the real RichPushServiceExtension in the Linux host) on the same push with `photo.jpg` as its media
(the reference: one fetch, the file attached), with `photo.jpg` as the sender's avatar instead
(one fetch, the bytes handed over as data, the intent made, donated and applied), and with a WebP
avatar (converted: on Linux by libvips through `richpush simulate`'s converter, where iOS uses
ImageIO). Prints the medians of the pipeline's own `elapsedMs` and of the host's peak memory, and
each against the reference.

Goal: a JPEG avatar costs what a JPEG attachment costs, within 5 ms and 2 MiB. The WebP row is
for information: it measures libvips (loaded on first use, its threads) in a Linux process, not
ImageIO, which iOS keeps loaded.

Usage: python3 benchmarks/message-avatar.py [--runs N] [--binary PATH]
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

from bench_common import build_release_richpush, run_measured, start_media_server


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--binary")
    args = parser.parse_args()
    binary = args.binary or build_release_richpush()
    server, base = start_media_server()
    try:
        with tempfile.TemporaryDirectory() as work:
            text = {"aps": {"alert": {"title": "Ada Lovelace", "body": "Tea at five?"}, "mutable-content": 1}, "push_id": "bench"}
            cases = [("media photo.jpg, no sender (reference)", dict(text, **{"image-url": f"{base}/media/photo.jpg"}))]
            for name, avatar in (("sender, avatar photo.jpg (89,696 B, as data)", "photo.jpg"), ("sender, avatar photo.webp (41,746 B, libvips)", "photo.webp")):
                cases.append((name, dict(text, sender={"id": "u-42", "name": "Ada Lovelace", "avatar": f"{base}/media/{avatar}"})))
            rows = []
            for name, payload in cases:
                path = os.path.join(work, "payload.json")
                with open(path, "w") as f:
                    json.dump(payload, f)
                elapsed, peaks = [], []
                for _ in range(args.runs):
                    status, out, _ = run_measured([binary, "simulate", path, "--json", "--allow-http-host", "127.0.0.1"])
                    if status != 0:
                        sys.exit(f"simulate failed ({status}) for {name}")
                    result = json.loads(out.splitlines()[0])
                    if "sender" in payload and not result["details"]["communication"]["shown"]:
                        sys.exit(f"{name}: not shown as a communication notification: {result['details']['communication']}")
                    elapsed.append(result["elapsedMs"])
                    peaks.append(result["host"]["peakMemoryBytes"] / 1048576)
                rows.append((name, statistics.median(elapsed), statistics.median(peaks)))
            reference = rows[0]
            print(f"median of {args.runs} runs, release build, loopback media server")
            print(f"{'push':44} {'elapsedMs':>10} {'vs ref':>8} {'host peak MiB':>14} {'vs ref':>8}")
            for name, ms, peak in rows:
                print(f"{name:44} {ms:10.1f} {ms - reference[1]:+8.1f} {peak:14.2f} {peak - reference[2]:+8.2f}")
    finally:
        server.kill()


if __name__ == "__main__":
    main()
