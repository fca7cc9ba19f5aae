#!/usr/bin/env python3
"""Benchmark: what the admin pages cost at 1,000 push ids and at 1,000,000 (issue 10).

Anyone can create push ids (a receipt names any push_id), so the dashboard and the push lists must
cost the same however many there are. The script starts two `richpush serve` (release build,
`--synchronous normal` to fill faster) on fresh SQLite files, posts receipts until one knows
1,000 push ids (the reference) and the other 1,000,000 (wrk, a new push id per receipt), then
times the same requests on both:

  * GET /                        the dashboard (first page of 25, cards, charts)
  * GET /?after=<cursor>         the dashboard's 20th page (keyset cursor)
  * GET /?q=<prefix>             search by push-id prefix
  * GET /?from=…&to=…            a date range
  * GET /pushes/<id>             one push's page
  * GET /v1/pushes?limit=100     the JSON list
  * 4 dashboards at once + one GET /v1/pushes/<id> started with them: the single push's latency

Two servers run side by side (one with the reference's push ids, one with the 1 M) and every
request alternates between them, so both see the same load on a shared machine. Each figure is
the median of --runs runs; the goal is every page at 1 M within 3x its time at 1 k (ratios printed). RICHPUSH_BIN=path measures that binary instead of building one;
RICHPUSH_BASELINE=path also measures an older binary on its own 1 M store for comparison.

With --postgres both servers run on a throwaway PostgreSQL cluster (Debian's postgresql: initdb
and pg_ctl, as the postgres user when run as root; synchronous_commit=off so the fill is quick).

With --distinct-reasons the stores are filled instead with receipts that each carry a new
64-byte reason and outcome code (issue 22 item 2), spread over 100 push ids: --reference
distinct reasons against --ids of them. Past the bounds they are stored as `other`; the pages
must cost the same, and the script also prints the bytes of GET /v1/pushes?limit=100 on both.

usage: python3 benchmarks/dashboard-scale.py [--ids 1000000] [--reference 1000] [--runs 15] [--postgres] [--distinct-reasons]
"""
import argparse
import glob
import http.client
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import ROOT, build_release_richpush  # noqa: E402

TOKEN = "bench-dashboard-token-0123456789abcdef"
LUA = r"""
-- POST /v1/receipts, each request a new push id: <run>-t<thread>-<n>
local threads = 0
function setup(thread) thread:set("tid", threads); threads = threads + 1 end
function init(args) run = args[1] or "0"; counter = 0 end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
function request()
  counter = counter + 1
  local body = "push_id=id-" .. run .. "-t" .. tid .. "-" .. counter
    .. "&receipt_id=r&outcome=media_attached&elapsed_ms=" .. (counter % 3000) .. "&media_bytes=89696"
  return wrk.format(nil, "/v1/receipts", nil, body)
end
"""
LUA_REASONS = r"""
-- POST /v1/receipts over 100 push ids, each request a new 64-byte reason and outcome code
local threads = 0
function setup(thread) thread:set("tid", threads); threads = threads + 1 end
function init(args) run = args[1] or "0"; counter = 0 end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
function request()
  counter = counter + 1
  local code = string.format("%s_t%d_%d", run, tid, counter)
  code = code .. string.rep("x", 62 - #code)
  local body = "push_id=rp-" .. (counter % 100) .. "&receipt_id=" .. run .. "-" .. tid .. "-" .. counter
    .. "&outcome=o" .. code .. "&reason=r" .. code .. "&elapsed_ms=" .. (counter % 3000)
  return wrk.format(nil, "/v1/receipts", nil, body)
end
"""


def ensure_wrk():
    if shutil.which("wrk"):
        return
    print("dashboard-scale: installing wrk (benchmark only)", file=sys.stderr)
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True)
    subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "wrk"], check=True,
                   env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"), stdout=subprocess.DEVNULL)


class PostgresCluster:
    """A throwaway PostgreSQL cluster (initdb + pg_ctl, as the postgres user when run as root) on a
    free loopback port, with one database per server."""

    def __init__(self):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: [int(x) for x in re.findall(r"\d+", p)])
        if not bins:
            sys.exit("dashboard-scale: --postgres needs Debian's postgresql (initdb under /usr/lib/postgresql/*/bin)")
        self.bin = bins[-1]
        self.dir = tempfile.mkdtemp(prefix="richpush-scale-pg.", dir="/var/tmp")
        self.runas = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.runas:
            shutil.chown(self.dir, "postgres")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        subprocess.run(self.runas + [f"{self.bin}/initdb", "-D", f"{self.dir}/pg", "-U", "richpush", "--auth=trust", "-E", "UTF8",
                                     "--locale=C"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(self.runas + [f"{self.bin}/pg_ctl", "-D", f"{self.dir}/pg", "-l", f"{self.dir}/pg.log", "-w", "-o",
                                     f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c synchronous_commit=off",
                                     "start"], check=True, stdout=subprocess.DEVNULL)
        self.count = 0

    def database(self):
        self.count += 1
        name = f"scale{self.count}"
        subprocess.run(["psql", "-q", "-h", "127.0.0.1", "-p", str(self.port), "-U", "richpush", "-d", "postgres", "-c",
                        f"CREATE DATABASE {name}"], check=True)
        return f"postgres://richpush@127.0.0.1:{self.port}/{name}"

    def stop(self):
        subprocess.run(self.runas + [f"{self.bin}/pg_ctl", "-D", f"{self.dir}/pg", "-m", "fast", "-w", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(self.dir, ignore_errors=True)


class Server:
    def __init__(self, binary, work, legacy, db_url=None):
        self.out = open(os.path.join(work, "serve.out"), "w+")
        # One wrk address fills a million push ids: no per-address budget for this benchmark.
        extra = [] if legacy else ["--max-connections-per-ip", "0", "--new-rows-per-address", "0"]
        store = ["--db", db_url] if db_url else ["--db", os.path.join(work, "scale.sqlite"), "--synchronous", "normal"]
        self.process = subprocess.Popen(
            [binary, "serve", "--port", "0", "--admin-token", TOKEN] + store + extra,
            stdout=self.out, stderr=subprocess.DEVNULL)
        for _ in range(400):
            self.out.seek(0)
            first = self.out.readline()
            if first.startswith("PORT "):
                self.port = int(first.split()[1])
                return
            time.sleep(0.05)
        raise RuntimeError("richpush serve did not start")

    def get(self, path):
        """GET with the admin token; returns (seconds, status, body)."""
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        t0 = time.perf_counter()
        c.request("GET", path, headers={"Authorization": "Bearer " + TOKEN})
        r = c.getresponse()
        body = r.read()
        dt = time.perf_counter() - t0
        c.close()
        return dt, r.status, body

    def metric(self, name):
        for line in self.get("/metrics")[2].decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        return 0.0

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=60)


def fill(server, work, target, run_id, reasons=False):
    """Posts receipts with new push ids (or, with `reasons`, new reason codes) until the store
    has `target` receipts."""
    lua = os.path.join(work, "ids.lua")
    with open(lua, "w") as f:
        f.write(LUA_REASONS if reasons else LUA)
    round_ = 0
    rate = 10000.0  # receipts/s, re-measured each round so the last rounds land near the target
    while True:
        have = server.metric("richpush_receipts_accepted_total")
        if have >= target:
            return int(have)
        left = target - have
        if left < 20000:
            # The last ones one by one, so the count lands exactly on the target.
            c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            for i in range(int(left)):
                tail = f"push_id=rp-{i % 100}&receipt_id=tail-{run_id}-{i}&reason=tail_{run_id}_{i}" if reasons else \
                    f"push_id=id-{run_id}-tail-{i}&receipt_id=r"
                c.request("POST", "/v1/receipts", body=tail,
                          headers={"Content-Type": "application/x-www-form-urlencoded"})
                c.getresponse().read()
            c.close()
            continue
        seconds = max(1, min(20, int(left / rate * 0.9)))
        t0 = time.time()
        subprocess.run(["wrk", "-t2", "-c32", f"-d{seconds}s", "-s", lua, f"http://127.0.0.1:{server.port}", "--",
                        f"{run_id}{round_}"], check=True, stdout=subprocess.DEVNULL)
        rate = max(1000.0, (server.metric("richpush_receipts_accepted_total") - have) / (time.time() - t0))
        round_ += 1


def paths(server, legacy):
    """The pages measured on one server (ids and cursors are its own)."""
    first = json.loads(server.get("/v1/pushes?limit=1")[2])
    some_id = first["pushes"][0]["push_id"]
    pages = {"GET / (dashboard)": "/"}
    if not legacy:
        # The dashboard's 20th page: follow 19 cursors through the JSON list (25 a page).
        cursor = None
        for _ in range(19):
            page = json.loads(server.get("/v1/pushes?limit=25" + (f"&after={cursor}" if cursor else ""))[2])
            cursor = page["next"]
        day = time.strftime("%Y-%m-%d", time.gmtime())
        pages.update({
            "GET /?after= (20th page)": f"/?after={cursor}",
            "GET /?q= (prefix search)": "/?q=" + urllib.parse.quote(some_id[:12]),
            "GET /?from=&to= (date range)": f"/?from={day}&to={day}",
            "GET /pushes/ID (one push)": "/pushes/" + urllib.parse.quote(some_id, safe=""),
        })
    pages["GET /v1/pushes?limit=100"] = "/v1/pushes?limit=100"
    return pages, "/v1/pushes/" + urllib.parse.quote(some_id, safe="")


def single_under_load(server, single_path):
    """One GET /v1/pushes/ID issued right after four dashboard loads start; its seconds."""
    threads = [threading.Thread(target=server.get, args=("/",)) for _ in range(4)]
    for t in threads:
        t.start()
    time.sleep(0.002)
    dt = server.get(single_path)[0]
    for t in threads:
        t.join()
    return dt


def measure_alternating(small, large, runs, legacy):
    """Median seconds of each page on both servers, requests alternating between them so both
    see the same machine load."""
    small_pages, small_single = paths(small, legacy)
    large_pages, large_single = paths(large, legacy)
    out = {}
    for name in small_pages:
        a, b = [], []
        for _ in range(runs):
            for server, path, times in ((small, small_pages[name], a), (large, large_pages[name], b)):
                dt, status, _ = server.get(path)
                if status != 200:
                    raise RuntimeError(f"{path}: HTTP {status}")
                times.append(dt)
        out[name] = (statistics.median(a), statistics.median(b))
    a, b = [], []
    for _ in range(runs):
        a.append(single_under_load(small, small_single))
        b.append(single_under_load(large, large_single))
    out["GET /v1/pushes/ID during 4 dashboards"] = (statistics.median(a), statistics.median(b))
    return out


def run(binary, ids, reference, runs, label, legacy=False, cluster=None, reasons=False):
    work_small = tempfile.mkdtemp(prefix="richpush-scale.")
    work_large = tempfile.mkdtemp(prefix="richpush-scale.")
    small = Server(binary, work_small, legacy, cluster.database() if cluster else None)
    large = Server(binary, work_large, legacy, cluster.database() if cluster else None)
    try:
        fill(small, work_small, reference, "a", reasons)
        t0 = time.time()
        total = fill(large, work_large, ids, "b", reasons)
        fill_seconds = time.time() - t0
        figures = measure_alternating(small, large, runs, legacy)
        rss = 0
        with open(f"/proc/{large.process.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) // 1024
        size = sum(os.path.getsize(os.path.join(work_large, n)) for n in os.listdir(work_large) if n.startswith("scale.sqlite"))
        where = f"PostgreSQL database" if cluster else f"database {size / 1e6:.0f} MB"
        unit = "distinct reasons" if reasons else "push ids"
        print(f"\n{label}: {reference:,} {unit} vs {total:,} {unit}, two servers measured alternately "
              f"(filled in {fill_seconds:.0f} s; {where}, RSS {rss} MB)")
        if reasons:
            sizes = [len(s.get("/v1/pushes?limit=100")[2]) for s in (small, large)]
            print(f"GET /v1/pushes?limit=100 weighs {sizes[0]:,} B vs {sizes[1]:,} B; "
                  f"codes folded to other: {small.metric('richpush_receipt_codes_folded_total'):,.0f} vs "
                  f"{large.metric('richpush_receipt_codes_folded_total'):,.0f}")
        short = "codes" if reasons else "ids"
        print(f"{'page':42} {f'{reference:,} {short}':>12} {f'{total:,} {short}':>14} {'ratio':>7}")
        worst = 0.0
        for name, (a, b) in figures.items():
            ratio = b / a
            worst = max(worst, ratio)
            print(f"{name:42} {a * 1000:9.1f} ms {b * 1000:11.1f} ms {ratio:6.2f}x")
        print(f"worst ratio {worst:.2f}x (goal: every page within 3x)")
        return worst
    finally:
        small.stop()
        large.stop()
        shutil.rmtree(work_small, ignore_errors=True)
        shutil.rmtree(work_large, ignore_errors=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ids", type=int, default=1_000_000)
    p.add_argument("--reference", type=int, default=1_000)
    p.add_argument("--runs", type=int, default=15)
    p.add_argument("--baseline-runs", type=int, default=3, help="runs per page for RICHPUSH_BASELINE (slow pages)")
    p.add_argument("--postgres", action="store_true", help="both servers on a throwaway PostgreSQL cluster (initdb) instead of SQLite")
    p.add_argument("--distinct-reasons", action="store_true", help="fill with a new reason/outcome code per receipt over 100 push ids")
    args = p.parse_args()
    ensure_wrk()
    binary = os.environ.get("RICHPUSH_BIN") or build_release_richpush()
    print(f"richpush {binary}; {os.cpu_count()} cores; load {os.getloadavg()[0]:.1f}; median of {args.runs} runs per page")
    if args.postgres:
        cluster = PostgresCluster()
        try:
            worst = run(binary, args.ids, args.reference, args.runs, "this build, PostgreSQL (synchronous_commit=off to fill)", cluster=cluster,
                        reasons=args.distinct_reasons)
        finally:
            cluster.stop()
        sys.exit(0 if worst <= 3 else 1)
    worst = run(binary, args.ids, args.reference, args.runs, "this build", reasons=args.distinct_reasons)
    baseline = os.environ.get("RICHPUSH_BASELINE")
    if baseline:
        print("\n(baseline: a richpush without pages or search; only GET / and GET /v1/pushes are measured)")
        try:
            run(baseline, args.ids, args.reference, args.baseline_runs, "baseline " + baseline, legacy=True)
        except RuntimeError as e:
            print(f"baseline: {e}")
    sys.exit(0 if worst <= 3 else 1)


if __name__ == "__main__":
    main()
