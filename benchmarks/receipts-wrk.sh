#!/usr/bin/env bash
# Benchmark: POST /v1/receipts on `richpush serve` (release, SQLite WAL, synchronous=FULL: every
# 202 is committed and fsynced) against nginx answering 204 to the same requests, with the same
# wrk threads and connections, on loopback. Prints both req/s and the ratio (goal >= 50 %), then
# posts until the server has stored 1,000,000 receipts and prints its RSS.
#
# Usage: bash benchmarks/receipts-wrk.sh [--threads 2] [--connections 64] [--duration 10]
#        [--synchronous full|normal] [--commit-linger MS] [--rounds 3] [--rss-receipts 1000000]
#        RICHPUSH_BASELINE=/path/to/older/richpush also measures that build in the same rounds.
# The machine may be shared: nginx and richpush are measured alternately, ROUNDS times each, and
# the medians are compared.
set -euo pipefail
cd "$(dirname "$0")/.."

THREADS=2; CONNECTIONS=64; DURATION=10; SYNC=full; LINGER=0; ROUNDS=3; RSS_RECEIPTS=1000000
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) THREADS=$2; shift 2;;
    --connections) CONNECTIONS=$2; shift 2;;
    --duration) DURATION=$2; shift 2;;
    --synchronous) SYNC=$2; shift 2;;
    --commit-linger) LINGER=$2; shift 2;;
    --rounds) ROUNDS=$2; shift 2;;
    --rss-receipts) RSS_RECEIPTS=$2; shift 2;;
    *) echo "unknown option $1" >&2; exit 64;;
  esac
done

for tool in wrk nginx; do
  if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$tool" ]; then
    echo "receipts-wrk: installing wrk and nginx-light (benchmark only)" >&2
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends wrk nginx-light >/dev/null
  fi
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

bash scripts/install-deps.sh
swift build -c release --product richpush >/dev/null
BIN=$(swift build -c release --show-bin-path)/richpush

WORK=$(mktemp -d /tmp/richpush-bench.XXXXXX)
SERVER_PID=""; NGINX_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
  [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# --- nginx answering 204 (the reference) ---
NGINX_PORT=$(free_port)
mkdir -p "$WORK/nginx/logs"
cat > "$WORK/nginx/nginx.conf" <<CONF
worker_processes auto;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $WORK/nginx/body;
  proxy_temp_path $WORK/nginx/proxy;
  fastcgi_temp_path $WORK/nginx/fastcgi;
  uwsgi_temp_path $WORK/nginx/uwsgi;
  scgi_temp_path $WORK/nginx/scgi;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    location / { return 204; }
  }
}
CONF
"$NGINX" -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' 2>"$WORK/nginx/stderr" &
NGINX_PID=$!
sleep 0.5

# --- richpush serve ---
TOKEN=bench-token-$(date +%s)-0123456789
# Every wrk connection comes from 127.0.0.1: no per-address cap (the default 64 would refuse -c 65+).
"$BIN" serve --port 0 --db "$WORK/bench.sqlite" --admin-token "$TOKEN" --max-connections-per-ip 0 --synchronous "$SYNC" --commit-linger "$LINGER" >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVER_PID=$!
for _ in $(seq 100); do grep -q '^PORT ' "$WORK/serve.out" 2>/dev/null && break; sleep 0.05; done
PORT=$(awk '/^PORT /{print $2; exit}' "$WORK/serve.out")

# RICHPUSH_BASELINE=/path/to/older/richpush: that build too, on its own database, in the same
# alternating rounds (its own flags only), so the two can be compared under the same load.
BASE_PORT=""; BASE_PID=""
if [ -n "${RICHPUSH_BASELINE:-}" ]; then
  "$RICHPUSH_BASELINE" serve --port 0 --db "$WORK/base.sqlite" --admin-token "$TOKEN" --synchronous "$SYNC" >"$WORK/base.out" 2>"$WORK/base.err" &
  BASE_PID=$!
  for _ in $(seq 100); do grep -q '^PORT ' "$WORK/base.out" 2>/dev/null && break; sleep 0.05; done
  BASE_PORT=$(awk '/^PORT /{print $2; exit}' "$WORK/base.out")
  trap 'kill "$BASE_PID" 2>/dev/null || true; cleanup' EXIT
fi

rps() { awk '/Requests\/sec/{print $2}'; }
run_wrk() { wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" -s benchmarks/receipts.lua "$1" -- "$2"; }

echo "wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s, POST /v1/receipts form body (~170 B), loopback, $(nproc) cores, $ROUNDS alternating rounds"
run_wrk "http://127.0.0.1:$NGINX_PORT" warm >/dev/null
run_wrk "http://127.0.0.1:$PORT" warm >/dev/null
NGINX_ALL=(); RICH_ALL=(); BASE_ALL=()
[ -n "$BASE_PORT" ] && run_wrk "http://127.0.0.1:$BASE_PORT" warm >/dev/null
for round in $(seq "$ROUNDS"); do
  NGINX_ALL+=("$(run_wrk "http://127.0.0.1:$NGINX_PORT" "n$round" | rps)")
  RICH_OUT=$(run_wrk "http://127.0.0.1:$PORT" "r$round")
  if echo "$RICH_OUT" | grep -q 'Non-2xx'; then echo "WARNING: richpush answered non-2xx: $(echo "$RICH_OUT" | grep Non-2xx)"; fi
  RICH_ALL+=("$(echo "$RICH_OUT" | rps)")
  LINE="  round $round: nginx ${NGINX_ALL[-1]} req/s, richpush ${RICH_ALL[-1]} req/s ($(echo "$RICH_OUT" | awk '/Latency/{print "latency avg " $2 ", max " $4}'))"
  if [ -n "$BASE_PORT" ]; then
    BASE_ALL+=("$(run_wrk "http://127.0.0.1:$BASE_PORT" "b$round" | rps)")
    LINE="$LINE, baseline ${BASE_ALL[-1]} req/s"
  fi
  echo "$LINE"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
NGINX_RPS=$(median "${NGINX_ALL[@]}")
RICH_RPS=$(median "${RICH_ALL[@]}")
echo "nginx (204, no work):                        $NGINX_RPS req/s (median)"
echo "richpush serve (202 after COMMIT, synchronous=$SYNC, linger ${LINGER} ms): $RICH_RPS req/s (median)"
python3 -c "r=float('$RICH_RPS')/float('$NGINX_RPS'); print(f'ratio richpush/nginx: {r*100:.1f} % (goal >= 50 %)')"
if [ -n "$BASE_PORT" ]; then
  BASE_RPS=$(median "${BASE_ALL[@]}")
  echo "baseline $RICHPUSH_BASELINE: $BASE_RPS req/s (median); this build / baseline: $(python3 -c "print(f'{float(\"$RICH_RPS\")/float(\"$BASE_RPS\"):.2f}')")"
  kill "$BASE_PID" 2>/dev/null || true
fi

metric() { curl -s "http://127.0.0.1:$PORT/metrics" | awk -v m="$1" '$1==m{print $2}'; }
echo "group commit: $(metric richpush_store_committed_receipts_total) receipts in $(metric richpush_store_commits_total) transactions"

# The durability ceiling: with one request in flight per connection, req/s <= connections /
# (time for one fdatasync + round trip). Measure fdatasync of a small append on this disk
# (same folder as the database), as SQLite's WAL sync does.
python3 - "$WORK/fsync.probe" "$CONNECTIONS" <<'PY2'
import os, sys, time
path, connections = sys.argv[1], int(sys.argv[2])
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
block, n, t0 = b"x" * 8192, 0, time.monotonic()
while time.monotonic() - t0 < 3:
    os.write(fd, block); os.fdatasync(fd); n += 1
dt = time.monotonic() - t0
os.close(fd); os.unlink(path)
ms = dt / n * 1000
print(f"fdatasync on this disk: {n / dt:.0f}/s ({ms:.2f} ms each); durable ceiling with {connections} connections "
      f"and no other cost: {connections / (dt / n):.0f} req/s")
PY2

# --- RSS after 1,000,000 receipts ---
run=2
while [ "$(metric richpush_receipts_accepted_total)" -lt "$RSS_RECEIPTS" ] && [ $run -lt 200 ]; do
  wrk -t"$THREADS" -c"$CONNECTIONS" -d10s -s benchmarks/receipts.lua "http://127.0.0.1:$PORT" -- "r$run" >/dev/null
  run=$((run + 1))
done
STORED=$(metric richpush_receipts_accepted_total)
RSS_KB=$(awk '/VmRSS/{print $2}' /proc/$SERVER_PID/status)
HWM_KB=$(awk '/VmHWM/{print $2}' /proc/$SERVER_PID/status)
DB_BYTES=$(du -cb "$WORK"/bench.sqlite* | tail -1 | cut -f1)
echo "after $STORED stored receipts: RSS $((RSS_KB / 1024)) MB (peak $((HWM_KB / 1024)) MB), database $((DB_BYTES / 1000000)) MB"
T0=$(date +%s.%N); curl -s -o /dev/null -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/v1/pushes"; T1=$(date +%s.%N); curl -s -o /dev/null -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/"; T2=$(date +%s.%N)
echo "over $STORED receipts: GET /v1/pushes $(python3 -c "print(f'{($T1-$T0)*1000:.0f}')") ms, GET / (dashboard) $(python3 -c "print(f'{($T2-$T1)*1000:.0f}')") ms"
kill -TERM "$SERVER_PID"; wait "$SERVER_PID"; echo "graceful stop: exit $?"; SERVER_PID=""
