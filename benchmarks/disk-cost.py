#!/usr/bin/env python3
"""Benchmark: disk bytes per stored receipt, SQLite and PostgreSQL (issue 22 item 8).

Starts `richpush serve` (release build) on a fresh store, posts --receipts receipts with wrk in two
shapes, and divides the store's growth by the receipts stored:

  * known pushes: receipts for 50 push ids (what devices send: many receipts per push), each with
    a receipt_id, outcome, elapsed_ms, media_bytes, media_type and a User-Agent;
  * new push ids: the same fields, each receipt naming a push id never seen (the storage flood:
    every receipt also adds a push_index row and its own push_counts/push_elapsed rows).

SQLite: the database file after the server stopped (its WAL checkpointed into it), minus the
empty store's file. PostgreSQL: pg_database_size(current_database()) after the run minus before
(a throwaway cluster: initdb + pg_ctl, as the postgres user when run as root; WAL not counted).

usage: python3 benchmarks/disk-cost.py [--receipts 100000] [--postgres]
"""
import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_common import build_release_richpush  # noqa: E402

spec = importlib.util.spec_from_file_location("dashboard_scale", os.path.join(HERE, "dashboard-scale.py"))
scale = importlib.util.module_from_spec(spec)
spec.loader.exec_module(scale)

LUA = r"""
local threads = 0
function setup(thread) thread:set("tid", threads); threads = threads + 1 end
function init(args) run = args[1] or "0"; fresh = args[2] == "new"; counter = 0 end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["User-Agent"] = "Example/4.2 (iPhone; iOS 18.1) RichPush/1"
function request()
  counter = counter + 1
  local id = run .. "-t" .. tid .. "-" .. counter
  local push = fresh and ("push-" .. id) or ("campaign-2026-11-" .. (counter % 50))
  local body = "push_id=" .. push .. "&event=delivered&receipt_id=" .. id
    .. "&outcome=media_attached&elapsed_ms=" .. (counter % 3000) .. "&media_bytes=" .. (80000 + counter % 20000)
    .. "&media_type=public.jpeg"
  return wrk.format(nil, "/v1/receipts", nil, body)
end
"""


def post(server, work, count, shape, run_id):
    lua = os.path.join(work, "cost.lua")
    with open(lua, "w") as f:
        f.write(LUA)
    start = server.metric("richpush_receipts_accepted_total")
    while server.metric("richpush_receipts_accepted_total") - start < count:
        subprocess.run(["wrk", "-t2", "-c32", "-d3s", "-s", lua, f"http://127.0.0.1:{server.port}", "--", f"{run_id}{time.time_ns()}", shape],
                       check=True, stdout=subprocess.DEVNULL)
    return int(server.metric("richpush_receipts_accepted_total") - start)


def psql(url, sql):
    return subprocess.run(["psql", "-At", url, "-c", sql], check=True, capture_output=True, text=True).stdout.strip()


def measure(binary, count, shape, cluster):
    work = tempfile.mkdtemp(prefix="richpush-cost.")
    url = cluster.database() if cluster else None
    try:
        server = scale.Server(binary, work, False, url)
        if url:
            before = int(psql(url, "SELECT pg_database_size(current_database())"))
        else:
            server.stop()
            before = os.path.getsize(os.path.join(work, "scale.sqlite"))
            server = scale.Server(binary, work, False, url)
        stored = post(server, work, count, shape, "c")
        server.stop()
        if url:
            after = int(psql(url, "SELECT pg_database_size(current_database())"))
        else:
            after = os.path.getsize(os.path.join(work, "scale.sqlite"))
        return stored, after - before
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--receipts", type=int, default=100_000)
    p.add_argument("--postgres", action="store_true")
    args = p.parse_args()
    scale.ensure_wrk()
    binary = os.environ.get("RICHPUSH_BIN") or build_release_richpush()
    cluster = scale.PostgresCluster() if args.postgres else None
    store = "PostgreSQL" if cluster else "SQLite"
    try:
        for shape, label in (("known", "receipts for 50 known push ids"), ("new", "each receipt a new push id")):
            stored, grown = measure(binary, args.receipts, shape, cluster)
            print(f"{store}: {label}: {stored:,} receipts, store grew {grown / 1e6:.1f} MB = {grown / stored:,.0f} B per receipt")
    finally:
        if cluster:
            cluster.stop()


if __name__ == "__main__":
    main()
