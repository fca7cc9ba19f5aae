#!/usr/bin/env python3
"""Peak memory (max RSS) of `richpush send --tokens FILE` at 10 k, 1 M and 10 M device tokens.

The tokens are streamed (issue 11): memory must stay flat, not grow with the file. Each run sends
one notification to every token of a file over one HTTP/2 connection to h2o (Debian `h2o`, C, a
3-line mruby handler answering 200 with the request's apns-id; fast enough for 10 M requests) and
prints the kernel's max RSS of the richpush process (os.wait4), the time, the rate and the CPU
time (user + system) per token, which is steadier than the rate on a shared machine. stdout (one
JSON line per token) goes to /dev/null; the summary line on stderr is checked (every token
accepted). The 10 k run is the reference: the figure that matters is RSS(N) / RSS(10 k).

Also `--tokens -` (stdin) at the middle size, and, with RICHPUSH_BASELINE=/path/to/richpush (an
older build that loads the whole file), that binary at the sizes up to MAX_BASELINE (default 1 M).

Usage: [RICHPUSH_BASELINE=BIN] python3 benchmarks/send-memory.py [SIZES=10000,1000000,10000000] [STREAMS=500]
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from bench_common import ROOT, build_release_richpush


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_h2o(work):
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", f"{work}/srv.key", "-out", f"{work}/srv.pem", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    port = free_port()
    user = subprocess.run(["id", "-un"], capture_output=True, text=True).stdout.strip()
    with open(f"{work}/h2o.conf", "w") as f:
        f.write(f"""listen:
  port: {port}
  host: 127.0.0.1
  ssl:
    certificate-file: {work}/srv.pem
    key-file: {work}/srv.key
num-threads: 1
user: {user}
http2-max-concurrent-requests-per-connection: 1000
hosts:
  default:
    paths:
      /:
        mruby.handler: |
          Proc.new do |env|
            [200, {{"apns-id" => (env["HTTP_APNS_ID"] || "00000000-0000-0000-0000-000000000000")}}, []]
          end
""")
    proc = subprocess.Popen(["h2o", "-c", f"{work}/h2o.conf"], stdout=subprocess.DEVNULL, stderr=open(f"{work}/h2o.log", "w"))
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.1)
    raise SystemExit("h2o did not start: " + open(f"{work}/h2o.log").read())


def write_tokens(path, n):
    with open(path, "w") as f:
        chunk = 100_000
        for start in range(0, n, chunk):
            f.write("".join(f"{i:064x}\n" for i in range(start, min(n, start + chunk))))


def measured(argv, stdin_path=None):
    """Runs argv (stdout to /dev/null); returns (status, stderr, max RSS KiB, seconds, CPU seconds)."""
    with tempfile.TemporaryFile() as err, open(os.devnull, "w") as null:
        stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
        t0 = time.monotonic()
        proc = subprocess.Popen(argv, stdin=stdin, stdout=null, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.monotonic() - t0
        if stdin_path:
            stdin.close()
        err.seek(0)
        return (os.waitstatus_to_exitcode(status), err.read().decode(errors="replace"), usage.ru_maxrss, seconds,
                usage.ru_utime + usage.ru_stime)


def main():
    sizes = [int(x) for x in (sys.argv[1] if len(sys.argv) > 1 else "10000,1000000,10000000").split(",")]
    streams = sys.argv[2] if len(sys.argv) > 2 else "500"
    baseline = os.environ.get("RICHPUSH_BASELINE")
    max_baseline = int(os.environ.get("MAX_BASELINE", "1000000"))
    richpush = build_release_richpush()
    work = tempfile.mkdtemp(prefix="richpush-send-memory-")
    h2o = None
    try:
        key = f"{work}/AuthKey_ABC123DEFG.p8"
        subprocess.run(f"openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out {key}",
                       shell=True, check=True, capture_output=True)
        h2o, port = start_h2o(work)
        base = ["send", "--key", key, "--team-id", "TEAM123456", "--topic", "com.example.app",
                "--apns-url", f"https://127.0.0.1:{port}", "--ca-file", f"{work}/srv.pem", "--concurrency", streams,
                "--payload", os.path.join(ROOT, "Tests/Fixtures/payloads/seed003-url.json")]
        rows = []
        reference = None
        for n in sizes:
            tokens = f"{work}/tokens-{n}.txt"
            write_tokens(tokens, n)
            runs = [("richpush", richpush, ["--tokens", tokens], None)]
            if n == sizes[len(sizes) // 2]:
                runs.append(("richpush, stdin", richpush, ["--tokens", "-"], tokens))
            if baseline and n <= max_baseline:
                runs.append(("baseline", baseline, ["--tokens", tokens], None))
            for label, binary, extra, stdin in runs:
                status, err, rss, seconds, cpu = measured([binary] + base + extra, stdin)
                summary = next((l for l in err.splitlines() if "tokens, sent" in l), err.strip()[-300:])
                ok = status == 0 and f"{n} tokens, sent {n}, accepted {n}" in summary
                if label == "richpush" and reference is None:
                    reference = rss
                rows.append((label, n, rss, seconds, ok, summary))
                print(f"{label:16} {n:>10,} tokens  max RSS {rss / 1024:7.1f} MiB  ({rss / reference:4.2f}x the 10 k run)"
                      f"  {seconds:7.1f} s  {n / seconds:9,.0f}/s  {cpu * 1e6 / n:5.1f} µs CPU each"
                      f"  {'ok' if ok else 'NOT ALL ACCEPTED: ' + summary}", flush=True)
            os.remove(tokens)
        print(f"({os.cpu_count()} cores, load {open('/proc/loadavg').read().split()[0]}; h2o 1 thread; {streams} streams on one connection)")
    finally:
        if h2o:
            h2o.kill()
            h2o.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
