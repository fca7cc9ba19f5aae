#!/usr/bin/env bash
# Campaigns at APNs' real speed (issue 21): a campaign to DEVICES registered devices against
# benchmarks/mock-apns (C, libnghttp2: far faster than the bound, see apns-connections.sh)
# answering LATENCY ms after each request, with Apple's stream limit (1 until a connection's
# first answer, then STREAMS), every `richpush serve` with --apns-connections CONNECTIONS. The
# bound is CONNECTIONS x STREAMS / latency. In one run:
#   1. one instance on SQLite: the reference, the same tokens through POST /v1/pushes (10,000 per
#      request, one after another), then the campaign ({"audience": {"all": true}}: tokens/s from
#      the 202 to `finished`), against the reference and the bound;
#   2. two instances on one PostgreSQL (a throwaway cluster, initdb + pg_ctl on a free port): the
#      same campaign, created on the first, sent by both;
#   3. the same with a kill -9 of the second instance once half is sent: the first takes its
#      chunks over when their lease runs out. The mock counts per device token: tokens sent twice
#      against `resent_after_crash` and the in-flight window (the killed instance's workers x
#      chunk size), and sends without an apns-collapse-id.
# Each instance's resident memory (RSS now and its peak, VmHWM) is printed after its campaign:
# flat in the audience size when a run with another DEVICES gives the same (the audience is
# never loaded into memory). Every mock count is read after a POST /control/reset of the mock
# at the start of its run. Machine load average: printed at each step.
# The mock puts no limit on the client's RST_STREAM frames (libcurl 7.88 resets every finished
# stream; RESET_LIMIT=1000 gives nghttp2's default rapid-reset limit, 1,000 then 33/s, beyond
# which it sends GOAWAY: see BENCHMARKS.md).
# RICHPUSH=/path/to/richpush picks another binary (default: the release build, built if missing);
# PG=0 skips 2 and 3; PUSHES=0 skips the reference; WORKERS (2) and CHUNK (500): --campaign-workers
# and --campaign-chunk-size of every instance. Serve's CPU time per token (user + sys, all
# its threads; both instances for 2) is printed for each run but the kill, and its ratio to the
# reference of the same run: a direct `richpush send --tokens` of the same DEVICES tokens through
# the same connections and streams to the same mock (user + sys of that process; DIRECT=0 skips it).
#
# Usage: benchmarks/campaign.sh [DEVICES=20000] [STREAMS=100] [LATENCY_MS=50] [CONNECTIONS=4]
set -euo pipefail
DEVICES=${1:-20000}
STREAMS=${2:-100}
LATENCY=${3:-50}
CONNECTIONS=${4:-4}
WORKERS=${WORKERS:-2}; CHUNK=${CHUNK:-500}; LEASE=3
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RICHPUSH=${RICHPUSH:-$ROOT/.build/release/richpush}
[ -x "$RICHPUSH" ] || (cd "$ROOT" && swift build -c release --product richpush >/dev/null)
make -s -C "$ROOT/benchmarks/mock-apns" >/dev/null || { echo "cannot build benchmarks/mock-apns: apt-get install libnghttp2-dev libssl-dev" >&2; exit 1; }
WORK=$(mktemp -d /var/tmp/richpush-campaign.XXXXXX)
MOCK=; SERVES=(); PGBIN=; RUNAS=()
cleanup() {
  for pid in "${SERVES[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  [ -n "$MOCK" ] && kill "$MOCK" 2>/dev/null || true
  [ -n "$PGBIN" ] && "${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$WORK/pg" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }
log() { echo "campaign.sh: $* (load $(load))" >&2; }

KEYID=ABC123DEFG; TEAM=TEAM123456; TOPIC=com.example.app; TOKEN=bench-admin-token-0123456789
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$WORK/AuthKey_$KEYID.p8"
"$ROOT/benchmarks/mock-apns/mock-apns" --stream-reset-limit "${RESET_LIMIT:-0}" --key "$WORK/AuthKey_$KEYID.p8" --key-id "$KEYID" --team-id "$TEAM" --topic "$TOPIC" \
  --ca-out "$WORK/ca.pem" --delay-ms "$LATENCY" --initial-streams 1 --max-streams "$STREAMS" > "$WORK/mock.out" 2>"$WORK/mock.err" &
MOCK=$!
for _ in $(seq 1 100); do grep -q '^CA ' "$WORK/mock.out" 2>/dev/null && break; sleep 0.1; done
MOCKPORT=$(sed -n 's/^PORT //p' "$WORK/mock.out")
mock() { curl -s --http2 --cacert "$WORK/ca.pem" "$@"; }
mock_reset() { mock -X POST "https://127.0.0.1:$MOCKPORT/control/reset" >/dev/null; }
mock_stats() { mock "https://127.0.0.1:$MOCKPORT/stats?per_token=0" > "$WORK/$1.json"; }

# start_serve DB NAME: one instance; appends its pid to SERVES, sets PORT_<NAME>.
start_serve() {
  local db=$1 name=$2
  "$RICHPUSH" serve --port 0 --db "$db" --admin-token "$TOKEN" --apns-key "$WORK/AuthKey_$KEYID.p8" --apns-key-id "$KEYID" \
    --apns-team-id "$TEAM" --apns-topic "$TOPIC" --apns-url "https://127.0.0.1:$MOCKPORT" --apns-ca-file "$WORK/ca.pem" \
    --apns-connections "$CONNECTIONS" --campaign-workers "$WORKERS" --campaign-chunk-size "$CHUNK" \
    --campaign-lease-seconds "$LEASE" > "$WORK/serve-$name.out" 2> "$WORK/serve-$name.err" &
  SERVES+=($!)
  eval "PID_$name=$!"
  for _ in $(seq 1 600); do grep -q '^PORT ' "$WORK/serve-$name.out" 2>/dev/null && break; sleep 0.1; done
  grep -q '^PORT ' "$WORK/serve-$name.out" || { echo "serve $name did not start:" >&2; tail -5 "$WORK/serve-$name.err" >&2; exit 1; }
  eval "PORT_$name=$(sed -n 's/^PORT //p' "$WORK/serve-$name.out")"
}
api() { curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' "$@"; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
# cpu PID…: CPU seconds (user + sys) of running instances, summed.
cpu() { local t=0 p; for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; python3 -c "print($t / $(getconf CLK_TCK))"; }
# us_per_token BEFORE AFTER: CPU microseconds per token between two cpu readings.
us_per_token() { python3 -c "print(f'{($2 - $1) * 1e6 / $DEVICES:.1f}')"; }
# mem PID: "RSS MB / peak MB" of a running instance.
mem() { awk '/^VmRSS/ {r=$2} /^VmHWM/ {h=$2} END {printf "%.0f MB / %.0f MB", r / 1024, h / 1024}' "/proc/$1/status"; }

# run_campaign PORT NAME [KILL_PID]: creates the campaign on PORT, polls until `finished`; with
# KILL_PID, kill -9 of that instance once half is sent. Sets RATE, RESENT.
run_campaign() {
  local port=$1 name=$2 kill_pid=${3:-}
  local id t0 t1 state deadline
  t0=$(date +%s.%N)
  deadline=$(( $(date +%s) + 3600 ))
  id=$(api -X POST -d "{\"audience\": {\"all\": true}, \"push_id\": \"$name\", \"title\": \"t\", \"body\": \"b\"}" \
    "http://127.0.0.1:$port/v1/campaigns" | field campaign_id)
  while true; do
    api "http://127.0.0.1:$port/v1/campaigns/$id" > "$WORK/c.json"
    state=$(field state < "$WORK/c.json")
    [ "$state" = finished ] && break
    [ "$(date +%s)" -lt "$deadline" ] || { echo "campaign $name not finished after an hour:" >&2; cat "$WORK/c.json" >&2; exit 1; }
    if [ -n "$kill_pid" ] && [ "$(field sent < "$WORK/c.json")" -ge $((DEVICES / 2)) ]; then
      log "kill -9 of $kill_pid at sent=$(field sent < "$WORK/c.json")"
      kill -9 "$kill_pid"; wait "$kill_pid" 2>/dev/null || true
      kill_pid=
    fi
    sleep 0.2
  done
  t1=$(date +%s.%N)
  RATE=$(python3 -c "print($DEVICES / ($t1 - $t0))")
  RESENT=$(field resent_after_crash < "$WORK/c.json")
  log "campaign $name: $(cat "$WORK/c.json")"
}

# --- 1. SQLite, one instance ---
start_serve "$WORK/bench.sqlite" a
# The devices, registered straight in the store (POST /v1/devices one by one would time the registrations).
python3 - "$WORK/bench.sqlite" "$DEVICES" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=30)
db.executemany("INSERT INTO devices (device_token, provider, platform, registered_at_ms) VALUES (?, 'apns', 'ios', 1)",
               (("%064x" % (i + 1),) for i in range(int(sys.argv[2]))))
db.commit()
EOF
[ "${PUSHES:-1}" = 0 ] || python3 -c "
import json
tokens = ['%064x' % (i + 1) for i in range($DEVICES)]
for n in range(0, len(tokens), 10000):
    json.dump({'push_id': 'bench-pushes', 'tokens': tokens[n:n + 10000], 'title': 't', 'body': 'b'}, open('$WORK/pushes-%07d.json' % (n // 10000), 'w'))
"
CPU_DIRECT=
if [ "${DIRECT:-1}" != 0 ]; then
  # The CPU reference: the same tokens sent by `richpush send` itself, no store.
  python3 -c "
with open('$WORK/tokens.txt', 'w') as f:
    for i in range($DEVICES): f.write('%064x\\n' % (i + 1))"
  log "richpush send, $DEVICES tokens"
  mock_reset
  /usr/bin/time -f "%e %U %S" -o "$WORK/direct.time" "$RICHPUSH" send --key "$WORK/AuthKey_$KEYID.p8" --team-id "$TEAM" --topic "$TOPIC" \
    --apns-url "https://127.0.0.1:$MOCKPORT" --ca-file "$WORK/ca.pem" --tokens "$WORK/tokens.txt" --title t --body b \
    --concurrency "$STREAMS" --apns-connections "$CONNECTIONS" > "$WORK/direct.out" 2> "$WORK/direct.err" ||
    { echo "richpush send failed:" >&2; tail -3 "$WORK/direct.err" >&2; exit 1; }
  read -r DIRECT CPU_DIRECT < <(python3 -c "
w, u, s = open('$WORK/direct.time').read().split()[-3:]
print($DEVICES / float(w), f'{(float(u) + float(s)) * 1e6 / $DEVICES:.1f}')")
  mock_stats direct
fi
REF=
if [ "${PUSHES:-1}" != 0 ]; then
  log "POST /v1/pushes, $DEVICES tokens"
  mock_reset
  c0=$(cpu "$PID_a")
  t0=$(date +%s.%N)
  for f in "$WORK"/pushes-*.json; do api -o /dev/null -X POST --data-binary "@$f" "http://127.0.0.1:$PORT_a/v1/pushes"; done
  t1=$(date +%s.%N)
  CPU_REF=$(us_per_token "$c0" "$(cpu "$PID_a")")
  REF=$(python3 -c "print($DEVICES / ($t1 - $t0))")
  mock_stats pushes
fi
log "campaign on SQLite"
mock_reset
c0=$(cpu "$PID_a")
run_campaign "$PORT_a" bench-sqlite
CPU_SQLITE=$(us_per_token "$c0" "$(cpu "$PID_a")")
SQLITE=$RATE; RES_SQLITE=$RESENT; MEM_SQLITE=$(mem "$PID_a")
mock_stats sqlite
kill "$PID_a"; wait "$PID_a" 2>/dev/null || true

rows() {
  local name=$1 rate=$2 stats=$3 resent=$4 window=$5 memory=$6 cpu=$7
  python3 -c "
import json
d = json.load(open('$WORK/$stats.json')); bound = $CONNECTIONS * $STREAMS / ($LATENCY / 1000)
rate = $rate; ref = ${REF:-0}
of_ref = f'{rate / ref:.0%}' if ref else '-'
cpu = '$cpu'; direct = '${CPU_DIRECT:-}'
us = f'{float(cpu):.0f} µs' if cpu not in ('', '-') else '-'
vs = f'{float(cpu) / float(direct):.2f}×' if direct and cpu not in ('', '-') else '-'
print(f'| $name | {rate:,.0f} | {of_ref} | {rate / bound:.0%} | {us} | {vs} | {d[\"distinct_tokens\"]:,} | {d[\"tokens_sent_twice\"]:,} | $resent | $window | {d[\"collapse_ids\"].get(\"\", 0):,} | {d[\"device_connections\"]} | {d[\"stream_limit_violations\"]} | $memory |')"
}
{
  echo
  echo "$DEVICES devices, $CONNECTIONS connections x $STREAMS streams, $LATENCY ms, Apple's stream limit (1, then $STREAMS); $WORKERS workers x $CHUNK-token chunks per instance, lease $LEASE s:"
  echo
  echo "| run | tokens/s | of POST /v1/pushes | of the bound ($CONNECTIONS × $STREAMS / $LATENCY ms) | CPU per token | ÷ direct send CPU | distinct tokens (mock) | tokens sent twice (mock) | resent_after_crash | in-flight window | sends without collapse id | connections (mock) | stream-limit violations | serve RSS / peak |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  [ -n "$CPU_DIRECT" ] && rows "richpush send --tokens (no store: the CPU reference)" "$DIRECT" direct "" "" "" "$CPU_DIRECT"
  [ -n "$REF" ] && rows "POST /v1/pushes, 10,000 per request (SQLite)" "$REF" pushes "" "" "" "$CPU_REF"
  rows "campaign, 1 instance, SQLite" "$SQLITE" sqlite "$RES_SQLITE" "" "$MEM_SQLITE" "$CPU_SQLITE"
} > "$WORK/table.md"

if [ "${PG:-1}" != 0 ]; then
  # --- 2. and 3. PostgreSQL, two instances ---
  PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -x "$PGBIN/initdb" ] || { echo "initdb not found under /usr/lib/postgresql/*/bin (Debian package postgresql)" >&2; exit 1; }
  if [ "$(id -u)" -eq 0 ]; then RUNAS=(runuser -u postgres --); chown postgres "$WORK"; fi
  PGPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
  "${RUNAS[@]}" "$PGBIN/initdb" -D "$WORK/pg" -U richpush --auth=trust -E UTF8 --locale=C >/dev/null
  "${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$WORK/pg" -l "$WORK/pg.log" -w \
    -o "-p $PGPORT -k $WORK -c listen_addresses=127.0.0.1 -c fsync=on -c synchronous_commit=on -c max_connections=100" start >/dev/null
  psql -q -h 127.0.0.1 -p "$PGPORT" -U richpush -d postgres -c "CREATE DATABASE bench" >/dev/null
  PGURL="postgres://richpush@127.0.0.1:$PGPORT/bench"
  start_serve "$PGURL" p
  psql -q -h 127.0.0.1 -p "$PGPORT" -U richpush -d bench -c \
    "INSERT INTO devices (device_token, provider, platform, registered_at_ms) SELECT lpad(to_hex(g), 64, '0'), 'apns', 'ios', 1 FROM generate_series(1, $DEVICES) g" >/dev/null
  start_serve "$PGURL" q
  log "campaign on PostgreSQL, 2 instances"
  mock_reset
  c0=$(cpu "$PID_p" "$PID_q")
  run_campaign "$PORT_p" bench-pg
  CPU_PG=$(us_per_token "$c0" "$(cpu "$PID_p" "$PID_q")")
  PG2=$RATE; RES_PG=$RESENT; MEM_PG="$(mem "$PID_p"), $(mem "$PID_q")"
  mock_stats pg
  log "campaign on PostgreSQL, 2 instances, kill -9 of one at 50 %"
  mock_reset
  run_campaign "$PORT_p" bench-pg-kill "$PID_q"
  KILLED=$RATE; MEM_KILL="$(mem "$PID_p")"
  mock_stats pgkill
  rows "campaign, 2 instances, PostgreSQL" "$PG2" pg "$RES_PG" "" "$MEM_PG" "$CPU_PG" >> "$WORK/table.md"
  rows "campaign, 2 instances, PostgreSQL, kill -9 of one at 50 %" "$KILLED" pgkill "$RESENT" "$((WORKERS * CHUNK)) ($WORKERS × $CHUNK)" "$MEM_KILL (survivor)" "-" >> "$WORK/table.md"
fi
cat "$WORK/table.md"
echo
echo "load average at the end: $(load)"
