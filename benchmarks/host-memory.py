#!/usr/bin/env python3
"""Bridge-in-the-host benchmark: the peak memory `richpush simulate` reports in "host".

`richpush simulate` runs the real RichPushServiceExtension in the Linux ExtensionHost, which
reports the process's peak resident memory (VmHWM) as `host.peakMemoryBytes` against the ~24 MB
iOS extension limit. This script checks that figure and puts it in context:

1. host.peakMemoryBytes (VmHWM read when the content is shown) against the kernel's ru_maxrss for
   the whole run until exit (os.wait4): consistent when host <= kernel; the gap is what the
   command does after delivery (waiting for the receipt, printing JSON), outside the extension.
2. The same peak against a reference run of the same binary doing no extension work
   (`richpush --version`): the Swift runtime + Foundation baseline of a Linux process. The
   difference is what the bridge, the pipeline and the host add; it must stay far below 24 MB.
3. Attaching 88 KB photo.jpg and a 9.5 MB JPEG: the host moves the file, never reads it, so the
   peak must not grow with the attachment (goal: growth < 2 MB, as for the pipeline alone).

Usage: python3 benchmarks/host-memory.py [--runs N]     (release build; bundled media server)
"""
import argparse
import json
import os
import shutil
import statistics
import tempfile

import bench_common

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
MIB = 1024 * 1024


def run_measured(argv):
    """Runs argv; returns (exit status, stdout, max RSS in bytes from the kernel)."""
    status, stdout, kib = bench_common.run_measured(argv)
    return status, stdout, kib * 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10, help="runs per figure (default 10)")
    args = parser.parse_args()

    richpush = bench_common.build_release_richpush()
    server, base = bench_common.start_media_server()
    work = tempfile.mkdtemp(prefix="richpush-host-bench-")
    try:

        def simulate(path, expected_bytes):
            payload = os.path.join(work, "payload.json")
            with open(payload, "w") as f:
                json.dump({"aps": {"alert": {"title": "Bench", "body": "b"}, "mutable-content": 1},
                           "image-url": base + path}, f)
            out_dir = tempfile.mkdtemp(dir=work)
            status, stdout, kernel_peak = run_measured(
                [richpush, "simulate", payload, "--allow-http-host", "127.0.0.1", "--out", out_dir, "--json"])
            result = json.loads(stdout)
            host = result["host"]
            assert status == 0 and result["outcome"] == "media_attached", result
            assert host["handlerCalls"] == 1 and len(host["attachmentsMovedTo"]) == 1, host
            assert result["content"]["attachments"][0]["bytes"] == expected_bytes, result
            shutil.rmtree(out_dir)
            return host["peakMemoryBytes"], kernel_peak

        runs = args.runs
        baseline = statistics.median(run_measured([richpush, "--version"])[2] for _ in range(runs))
        rows = []
        for label, path, size in [("88 KB photo.jpg", "/media/photo.jpg", 89_696),
                                  ("9.5 MB JPEG", "/sized?bytes=9500000", 9_500_000)]:
            samples = [simulate(path, size) for _ in range(runs)]
            rows.append((label, statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)))

        print("== richpush simulate through the host, release build, median of %d runs" % runs)
        print("reference: `richpush --version` (runtime baseline, no extension work): %.1f MiB" % (baseline / MIB))
        print("%-16s %14s %14s %9s %16s %9s" % ("attachment", "host peak", "kernel peak", "h/k", "over baseline", "ratio"))
        for label, host_peak, kernel_peak in rows:
            print("%-16s %10.1f MiB %10.1f MiB %9.3f %12.1f MiB %9.3f" % (
                label, host_peak / MIB, kernel_peak / MIB, host_peak / kernel_peak, (host_peak - baseline) / MIB,
                host_peak / baseline))
        assert all(h <= k for _, h, k in rows), "the host's peak cannot exceed the process's"
        growth = rows[1][1] - rows[0][1]
        print("growth 88 KB -> 9.5 MB: %+.2f MiB (goal < 2 MiB): %s" % (growth / MIB, "met" if growth < 2 * MIB else "NOT MET"))
        added = rows[1][1] - baseline
        print("bridge + pipeline + host over the runtime baseline: %.1f MiB (iOS extension limit ~24 MiB)" % (added / MIB))
    finally:
        server.terminate()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
