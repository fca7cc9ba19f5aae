#!/usr/bin/env bash
# Benchmark: durable POST /v1/receipts on PostgreSQL (issue 9). Same wrk settings, one run, on
# loopback, alternating rounds:
#   nginx-204     nginx answering `return 204;` (no work: the ceiling)
#   sqlite        one `richpush serve` on SQLite (synchronous=full: a 202 follows COMMIT + fdatasync)
#   postgres      one `richpush serve` on PostgreSQL (synchronous_commit=on: a 202 follows COMMIT,
#                 which follows the WAL flush)
#   2x postgres   two `richpush serve` on the same PostgreSQL behind nginx (proxy, keepalive upstream)
# Each figure: req/s (median of the rounds) and CPU microseconds per receipt, split by process
# (richpush, postgres = every process of the cluster, nginx), from /proc/PID/stat around each round.
# PostgreSQL and the SQLite file live in one fresh directory on the same disk; the cluster is
# made with initdb (as the postgres user when run as root), default settings plus fsync=on and
# synchronous_commit=on stated explicitly, and removed afterwards.
#
# Usage: bash benchmarks/receipts-postgres.sh [--threads 2] [--connections 64] [--duration 10]
#        [--rounds 3] [--db-connections 4] [--dir /var/tmp]
set -euo pipefail
cd "$(dirname "$0")/.."

THREADS=2; CONNECTIONS=64; DURATION=10; ROUNDS=3; DB_CONNECTIONS=4; BASE=/var/tmp
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) THREADS=$2; shift 2;;
    --connections) CONNECTIONS=$2; shift 2;;
    --duration) DURATION=$2; shift 2;;
    --rounds) ROUNDS=$2; shift 2;;
    --db-connections) DB_CONNECTIONS=$2; shift 2;;
    --dir) BASE=$2; shift 2;;
    *) echo "unknown option $1" >&2; exit 64;;
  esac
done

for tool in wrk nginx; do
  if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$tool" ]; then
    echo "receipts-postgres: installing wrk and nginx-light (benchmark only)" >&2
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends wrk nginx-light >/dev/null
  fi
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

bash scripts/install-deps.sh
swift build -c release --product richpush >/dev/null
BIN=$(swift build -c release --show-bin-path)/richpush
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$PGBIN/initdb" ] || { echo "receipts-postgres: initdb not found under /usr/lib/postgresql/*/bin (Debian package postgresql)" >&2; exit 1; }

WORK=$(mktemp -d "$BASE/richpush-pgbench.XXXXXX")
RUNAS=()
if [ "$(id -u)" -eq 0 ]; then RUNAS=(runuser -u postgres --); chown postgres "$WORK"; fi
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  "${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$WORK/pg" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# --- PostgreSQL: a fresh cluster on this disk ---
PGPORT=$(free_port)
"${RUNAS[@]}" "$PGBIN/initdb" -D "$WORK/pg" -U richpush --auth=trust -E UTF8 --locale=C >/dev/null
"${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$WORK/pg" -l "$WORK/pg.log" -w \
  -o "-p $PGPORT -k $WORK -c listen_addresses=127.0.0.1 -c fsync=on -c synchronous_commit=on -c max_connections=100" start >/dev/null
psql -q -h 127.0.0.1 -p "$PGPORT" -U richpush -d postgres -c "CREATE DATABASE bench" >/dev/null
PGURL="postgres://richpush@127.0.0.1:$PGPORT/bench"
PG_VERSION=$(psql -At -h 127.0.0.1 -p "$PGPORT" -U richpush -d postgres -c "SHOW server_version")
PG_PIDS() { local pm; pm=$(head -n 1 "$WORK/pg/postmaster.pid"); echo "$pm" $(pgrep -P "$pm"); }

# --- nginx: the 204 reference, and the load balancer in front of two instances ---
nginx_conf() { # name, server block
  mkdir -p "$WORK/$1/logs"
  cat > "$WORK/$1/nginx.conf" <<CONF
worker_processes auto;
pid $WORK/$1/nginx.pid;
error_log $WORK/$1/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $WORK/$1/body;
  proxy_temp_path $WORK/$1/proxy;
  fastcgi_temp_path $WORK/$1/fastcgi;
  uwsgi_temp_path $WORK/$1/uwsgi;
  scgi_temp_path $WORK/$1/scgi;
  keepalive_requests 1000000;
  $2
}
CONF
  "$NGINX" -p "$WORK/$1" -c "$WORK/$1/nginx.conf" -g 'daemon off;' 2>"$WORK/$1/stderr" &
  PIDS+=($!)
}
NGINX_PIDS() { local master; master=$(cat "$WORK/$1/nginx.pid"); echo "$master" $(pgrep -P "$master"); }

NGINX_PORT=$(free_port)
nginx_conf ref "server { listen 127.0.0.1:$NGINX_PORT; location / { return 204; } }"

# --- richpush serve instances ---
serve() { # name, --db value, extra args…
  local name=$1 db=$2; shift 2
  "$BIN" serve --port 0 --db "$db" --admin-token bench "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
  PIDS+=($!)
  eval "PID_$name=$!"
  for _ in $(seq 200); do grep -q '^PORT ' "$WORK/$name.out" 2>/dev/null && break; sleep 0.05; done
  grep -q '^PORT ' "$WORK/$name.out" || { echo "richpush serve ($name) did not start: $(cat "$WORK/$name.err")" >&2; exit 1; }
  eval "PORT_$name=$(awk '/^PORT /{print $2; exit}' "$WORK/$name.out")"
}
serve sqlite "$WORK/bench.sqlite" --synchronous full
serve pg1 "$PGURL" --db-connections "$DB_CONNECTIONS"
serve pgA "$PGURL" --db-connections "$DB_CONNECTIONS"
serve pgB "$PGURL" --db-connections "$DB_CONNECTIONS"
LB_PORT=$(free_port)
nginx_conf lb "upstream richpush { server 127.0.0.1:$PORT_pgA; server 127.0.0.1:$PORT_pgB; keepalive 128; }
  server { listen 127.0.0.1:$LB_PORT; location / { proxy_pass http://richpush; proxy_http_version 1.1; proxy_set_header Connection \"\"; } }"
sleep 0.5

# CPU ticks (utime + stime) of the given PIDs, in microseconds.
cpu_us() { python3 - "$@" <<'PY'
import os, sys
tick = os.sysconf("SC_CLK_TCK")
total = 0
for pid in sys.argv[1:]:
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        pass
print(total * 1_000_000 // tick)
PY
}

run_wrk() { wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" -s benchmarks/receipts.lua "$1" -- "$2"; }

# One measured round: target URL, label, run id, then groups "name:pid pid …" to account CPU to.
measure() {
  local url=$1 label=$2 run=$3; shift 3
  local -a names=() before=() after=()
  for group in "$@"; do names+=("${group%%:*}"); before+=("$(cpu_us ${group#*:})"); done
  local out; out=$(run_wrk "$url" "$run")
  for group in "$@"; do after+=("$(cpu_us ${group#*:})"); done
  local requests rps non2xx
  requests=$(echo "$out" | awk '/requests in/{print $1}')
  rps=$(echo "$out" | awk '/Requests\/sec/{print $2}')
  non2xx=$(echo "$out" | awk '/Non-2xx/{print $NF}')
  local line="$label $rps $requests ${non2xx:-0}"
  for i in "${!names[@]}"; do line+=" ${names[$i]}=$(( (after[i] - before[i]) ))"; done
  echo "$line" >> "$WORK/results"
  printf '  %-12s %9s req/s  (%s requests%s)\n' "$label" "$rps" "$requests" "$([ -n "$non2xx" ] && echo ", $non2xx non-2xx")"
}

echo "wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s, POST /v1/receipts form body (~170 B), loopback, $(nproc) cores, $ROUNDS alternating rounds"
echo "PostgreSQL $PG_VERSION (fsync=on, synchronous_commit=on, otherwise defaults) and SQLite (synchronous=full) in $BASE; richpush --db-connections $DB_CONNECTIONS"
for url in "http://127.0.0.1:$NGINX_PORT" "http://127.0.0.1:$PORT_sqlite" "http://127.0.0.1:$PORT_pg1" "http://127.0.0.1:$LB_PORT"; do
  wrk -t"$THREADS" -c"$CONNECTIONS" -d2s -s benchmarks/receipts.lua "$url" -- warm >/dev/null
done
: > "$WORK/results"
for round in $(seq "$ROUNDS"); do
  echo "round $round:"
  measure "http://127.0.0.1:$NGINX_PORT" nginx-204 "n$round" "nginx:$(NGINX_PIDS ref)"
  measure "http://127.0.0.1:$PORT_sqlite" sqlite "s$round" "richpush:$PID_sqlite"
  measure "http://127.0.0.1:$PORT_pg1" postgres "p$round" "richpush:$PID_pg1" "postgres:$(PG_PIDS)"
  measure "http://127.0.0.1:$LB_PORT" 2x-postgres "l$round" "richpush:$PID_pgA $PID_pgB" "postgres:$(PG_PIDS)" "nginx:$(NGINX_PIDS lb)"
done

echo
python3 - "$WORK/results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    label, rps, requests, non2xx, *groups = line.split()
    cpu = {g.split("=")[0]: int(g.split("=")[1]) for g in groups}
    rows.setdefault(label, []).append((float(rps), int(requests), int(non2xx), cpu))
def med(label, f):
    return statistics.median(f(r) for r in rows[label])
print(f"{'':14}{'req/s':>9}  {'CPU µs per receipt':>20}  (median of rounds; CPU split by process)")
for label in ["nginx-204", "sqlite", "postgres", "2x-postgres"]:
    rps = med(label, lambda r: r[0])
    names = list(rows[label][0][3].keys())
    per = {n: med(label, lambda r: r[3][n] / r[1]) for n in names}
    total = med(label, lambda r: sum(r[3].values()) / r[1])
    split = ", ".join(f"{n} {v:.1f}" for n, v in per.items())
    bad = sum(r[2] for r in rows[label])
    print(f"{label:14}{rps:9.0f}  {total:20.1f}  ({split}){'  NON-2xx: %d' % bad if bad else ''}")
s, p, l, n = (med(x, lambda r: r[0]) for x in ["sqlite", "postgres", "2x-postgres", "nginx-204"])
print(f"postgres / sqlite (one instance): {p / s * 100:.1f} % (goal >= 80 %)")
print(f"2 instances behind nginx / 1 instance: {l / p * 100:.1f} %; postgres / nginx-204: {p / n * 100:.1f} %")
PY
metric() { curl -s "http://127.0.0.1:$1/metrics" | awk -v m="$2" '$1==m{print $2}'; }
for name in pg1 pgA pgB; do
  port_var="PORT_$name"
  echo "group commit ($name): $(metric "${!port_var}" richpush_store_committed_receipts_total) receipts in $(metric "${!port_var}" richpush_store_commits_total) transactions"
done
psql -At -h 127.0.0.1 -p "$PGPORT" -U richpush -d bench -F ' ' -c "SELECT count(*), pg_total_relation_size('receipts'),
    pg_total_relation_size('receipts') + pg_total_relation_size('push_counts') + pg_total_relation_size('push_elapsed'),
    pg_current_wal_lsn() - '0/0' FROM receipts" | while read -r n receipts all wal; do
  echo "stored in PostgreSQL: $n receipts; on disk $((receipts / n)) bytes per receipt (receipts table and its index; $((all / n)) with the counters); WAL written $((wal / n)) bytes per receipt"
done
