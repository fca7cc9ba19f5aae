#!/usr/bin/env python3
"""Extension pipeline benchmark: peak memory (max RSS) of `richpush simulate` and its time overhead.

1. Max RSS of `richpush simulate` (release build) attaching 1 MB, 5 MB and 9.5 MB JPEGs
   (photo.jpg followed by zeros: a valid-prefix JPEG) from the bundled local media server,
   against the same run attaching the 88 KB photo.jpg. Goal: growth < 2 MB at every size
   (the body is streamed to disk; the articles' in-memory approach grows ~18 MB).
2. The pipeline's own elapsedMs for photo.jpg against `curl -w %{time_total}` fetching the same
   URL, median of 20 runs each. Goal: overhead <= 5 ms.
3. RichPush's integrity check (RichPushMediaIntegrity) on a 9.5 MB JPEG whose picture data runs to the
   end (/long-scan: every byte scanned for markers) against the same size where the scan stops
   early (/sized: photo.jpg then zeros), elapsedMs, median of N runs each. Goal: the scan adds
   under 100 ms for 9.5 MB (ratio printed), and max RSS stays flat (< 2 MB over the reference).

Usage: python3 benchmarks/extension-memory.py [--runs N]    (from the repository root or anywhere)
Max RSS is read per child with os.wait4 (ru_maxrss, KiB on Linux).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile

from bench_common import build_release_richpush, run_measured, start_media_server

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SIZES = [("1 MB", 1_000_000), ("5 MB", 5_000_000), ("9.5 MB", 9_500_000)]
PHOTO_BYTES = 89_696


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20, help="runs per figure (default 20)")
    args = parser.parse_args()

    richpush = build_release_richpush()
    server, base = start_media_server()
    work = tempfile.mkdtemp(prefix="richpush-bench-")
    try:

        def payload(path):
            file = os.path.join(work, "p-%s.json" % abs(hash(path)))
            with open(file, "w") as f:
                json.dump({"aps": {"alert": {"title": "Bench", "body": "b"}, "mutable-content": 1},
                           "image-url": base + path}, f)
            return file

        def simulate(path, expected_bytes, transport="curl"):
            out_dir = tempfile.mkdtemp(dir=work)
            status, stdout, rss = run_measured([richpush, "simulate", payload(path), "--allow-http-host", "127.0.0.1",
                                                "--out", out_dir, "--json", "--transport", transport])
            result = json.loads(stdout)
            attachments = result["content"]["attachments"]
            assert status == 0 and result["outcome"] == "media_attached", result
            assert attachments[0]["bytes"] == expected_bytes, attachments
            shutil.rmtree(out_dir)
            return rss, result["elapsedMs"]

        runs = args.runs
        print("== Peak memory (max RSS) of `richpush simulate`, release build, median of %d runs" % runs)
        reference = statistics.median(simulate("/media/photo.jpg", PHOTO_BYTES)[0] for _ in range(runs))
        print("%-10s %10s %12s %8s" % ("image", "max RSS", "growth", "ratio"))
        print("%-10s %7d KiB %12s %8s" % ("88 KB", reference, "reference", "1.000"))
        worst = float("-inf")
        for label, size in SIZES:
            rss = statistics.median(simulate("/sized?bytes=%d" % size, size)[0] for _ in range(runs))
            growth = rss - reference
            worst = max(worst, growth)
            print("%-10s %7d KiB %+8d KiB %8.3f" % (label, rss, growth, rss / reference))
        print("goal: growth < 2048 KiB at every size -> %s (worst %+d KiB)" % ("MET" if worst < 2048 else "NOT MET", worst))
        # For information: the same 9.5 MB through FoundationNetworking's URLSession (iOS's transport).
        us_ref = statistics.median(simulate("/media/photo.jpg", PHOTO_BYTES, "urlsession")[0] for _ in range(runs))
        us_big = statistics.median(simulate("/sized?bytes=9500000", 9_500_000, "urlsession")[0] for _ in range(runs))
        print("(info) --transport urlsession: 88 KB %d KiB, 9.5 MB %d KiB, growth %+d KiB" % (us_ref, us_big, us_big - us_ref))

        print()
        print("== Time for photo.jpg (88 KB): pipeline elapsedMs vs curl -w %%{time_total}, median of %d runs" % runs)
        for _ in range(3):  # warm up the server and the page cache
            simulate("/media/photo.jpg", PHOTO_BYTES)
        pipeline_ms = statistics.median(simulate("/media/photo.jpg", PHOTO_BYTES)[1] for _ in range(runs))
        curl_ms = []
        for _ in range(runs):
            out = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{time_total}", base + "/media/photo.jpg"],
                                 check=True, capture_output=True, text=True).stdout
            curl_ms.append(float(out) * 1000)
        curl_median = statistics.median(curl_ms)
        overhead = pipeline_ms - curl_median
        print("pipeline elapsedMs (median): %.1f ms" % pipeline_ms)
        print("curl time_total     (median): %.1f ms (reference)" % curl_median)
        print("overhead: %+.1f ms, ratio %.2f" % (overhead, pipeline_ms / curl_median if curl_median else float("nan")))
        print("goal: overhead <= 5 ms -> %s" % ("MET" if overhead <= 5 else "NOT MET"))

        print()
        print("== Integrity check of a 9.5 MB JPEG: /long-scan (every byte scanned) vs /sized (scan ends at EOI), median of %d runs" % runs)
        simulate("/long-scan?bytes=9500000", 9_500_000)  # the server makes it once
        short = [simulate("/sized?bytes=9500000", 9_500_000) for _ in range(runs)]
        long = [simulate("/long-scan?bytes=9500000", 9_500_000) for _ in range(runs)]
        short_ms = statistics.median(r[1] for r in short)
        long_ms = statistics.median(r[1] for r in long)
        long_rss = statistics.median(r[0] for r in long)
        print("elapsedMs /sized     (reference): %.1f ms" % short_ms)
        print("elapsedMs /long-scan            : %.1f ms (%+.1f ms, ratio %.2f)" % (long_ms, long_ms - short_ms, long_ms / short_ms if short_ms else float("nan")))
        print("max RSS /long-scan: %d KiB (%+d KiB vs the 88 KB reference)" % (long_rss, long_rss - reference))
        print("goal: scan adds < 100 ms and RSS growth < 2048 KiB -> %s" % ("MET" if long_ms - short_ms < 100 and long_rss - reference < 2048 else "NOT MET"))
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
