#!/usr/bin/env python3
"""Who saw it, at scale (issue 29): registration through `POST /v1/devices/batch` and the
recipients export of `GET /v1/pushes/{id}/recipients?state=not_delivered&format=ndjson`, against
one `richpush serve` on a fresh SQLite file.

Steps, each timed (wall clock of the HTTP requests, one after another, from this process):
  1. register DEVICES devices (10,000 a request, each with a user id and recipient_receipts),
  2. record one push sent to all of them (`POST /v1/pushes/{id}/sends`, 5,000 results a request:
     its body is at most 1 MB),
  3. export the push's not_delivered recipients as NDJSON (every device: none sent a receipt),
     counting the rows read and checking each is a JSON object with a device_id;
and the server's resident memory (VmRSS) before the export and its peak during the export
(VmHWM, reset just before it through /proc/PID/clear_refs), split into its two kinds, sampled
every 20 ms during the export: anonymous memory (RssAnon: the heap, what the process holds) and
file-backed pages (RssFile: the program's code and the database file SQLite reads through its
`mmap_size` window, up to 256 MB a reader connection; page cache the kernel reclaims under
pressure, not memory the export holds). Run at two sizes (SMALL then DEVICES, each on a fresh
server): the export's memory is flat when its anonymous peak with DEVICES rows is no higher than
with SMALL rows (it is written to an unlinked file and sent from there, never held).

Usage: python3 benchmarks/recipients.py [--devices 1000000] [--small 100000] [--binary PATH]
(default binary: the release build, built if missing).
"""
import argparse
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

from bench_common import build_release_richpush

TOKEN = "bench-admin-token-0123456789"


def vm(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def request(port, method, path, body=None, accept=None, stream=False):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    headers = {"Authorization": "Bearer " + TOKEN}
    if body is not None:
        headers["Content-Type"] = "application/json"
        body = json.dumps(body).encode()
    if accept:
        headers["Accept"] = accept
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    if stream:
        return conn, response
    data = response.read()
    conn.close()
    if response.status >= 300:
        sys.exit(f"{method} {path}: {response.status} {data[:300]!r}")
    return data


def run(binary, devices):
    folder = tempfile.mkdtemp(prefix="richpush-recipients-")
    server = subprocess.Popen(
        [binary, "serve", "--port", "0", "--db", os.path.join(folder, "r.sqlite"), "--admin-token", TOKEN],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = None
        for line in server.stdout:
            match = re.match(r"PORT (\d+)", line)
            if match:
                port = int(match.group(1))
                break
        if port is None:
            sys.exit("richpush serve printed no PORT line")
        tokens = ["%064x" % (0xB0000000 + i) for i in range(devices)]
        started = time.monotonic()
        for start in range(0, devices, 10_000):
            chunk = tokens[start:start + 10_000]
            request(port, "POST", "/v1/devices/batch", {"devices": [
                {"token": t, "platform": "ios", "user_id": "u%d" % (start + i), "recipient_receipts": True}
                for i, t in enumerate(chunk)]})
        registered = time.monotonic() - started
        started = time.monotonic()
        for start in range(0, devices, 5_000):
            chunk = tokens[start:start + 5_000]
            request(port, "POST", "/v1/pushes/bench-recipients/sends", {
                "batch_id": "b%d" % start, "source": "bench",
                "results": [{"token": t, "outcome": "accepted", "status": 200} for t in chunk]})
        recorded = time.monotonic() - started
        before = vm(server.pid, "VmRSS")
        # Linux: "5" resets the peak resident set (VmHWM) to the current one, so the peak read
        # after the export is the export's own (proc(5), /proc/pid/clear_refs).
        with open(f"/proc/{server.pid}/clear_refs", "w") as f:
            f.write("5")
        anon_before = vm(server.pid, "RssAnon")
        peaks = {"RssAnon": 0, "RssFile": 0}
        done = threading.Event()

        def sample():
            while not done.is_set():
                for field in peaks:
                    peaks[field] = max(peaks[field], vm(server.pid, field))
                time.sleep(0.02)

        sampler = threading.Thread(target=sample)
        sampler.start()
        started = time.monotonic()
        conn, response = request(
            port, "GET", "/v1/pushes/bench-recipients/recipients?state=not_delivered&format=ndjson", stream=True)
        if response.status != 200:
            sys.exit(f"export: {response.status} {response.read()[:300]!r}")
        rows = 0
        pending = b""
        while True:
            block = response.read(1 << 16)
            if not block:
                break
            pending += block
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if line:
                    row = json.loads(line)
                    if not isinstance(row, dict) or "device_id" not in row:
                        sys.exit(f"export: a row without device_id: {line[:200]!r}")
                    rows += 1
        conn.close()
        exported = time.monotonic() - started
        done.set()
        sampler.join()
        peak = vm(server.pid, "VmHWM")
        if rows != devices:
            sys.exit(f"export: {rows} rows for {devices} devices")
        return registered, recorded, exported, rows, before, peak, anon_before, peaks["RssAnon"], peaks["RssFile"]
    finally:
        server.terminate()
        server.wait(timeout=30)
        subprocess.run(["rm", "-rf", folder])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", type=int, default=1_000_000)
    parser.add_argument("--small", type=int, default=100_000)
    parser.add_argument("--binary")
    args = parser.parse_args()
    binary = args.binary or build_release_richpush()
    print(f"load average {os.getloadavg()[0]:.1f} at the start")
    print("| devices | register (devices/s) | record the send (results/s) | export not_delivered NDJSON (rows/s) | serve RSS before the export "
          "| serve peak RSS during the export | anonymous before → peak during | file-backed peak during |")
    print("|---|---|---|---|---|---|---|---|")
    for devices in (args.small, args.devices):
        registered, recorded, exported, rows, before, peak, anon, anon_peak, file_peak = run(binary, devices)
        print(f"| {devices:,} | {registered:.1f} s ({devices / registered:,.0f}/s) | {recorded:.1f} s ({devices / recorded:,.0f}/s) "
              f"| {exported:.1f} s ({rows / exported:,.0f}/s) | {before / 2**20:.0f} MiB | {peak / 2**20:.0f} MiB "
              f"| {anon / 2**20:.0f} → {anon_peak / 2**20:.0f} MiB | {file_peak / 2**20:.0f} MiB |", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
