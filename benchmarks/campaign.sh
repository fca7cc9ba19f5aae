#!/usr/bin/env bash
# A campaign to DEVICES registered devices on one `richpush serve` (SQLite) against
# Tests/Support/mock_apns.py answering LATENCY ms after each request, with Apple's stream limit
# (1 until the first answer, then STREAMS). In the same run:
#   1. the reference: the same tokens through POST /v1/pushes, 10,000 per request, one after another;
#   2. the campaign ({"audience": {"all": true}}): tokens/s from the 202 to `finished`, against
#      the reference and against the bound (STREAMS / latency: one APNs connection);
#   3. the same campaign again with a kill -9 of the server once half is sent, then a restart:
#      the tokens the mock saw twice, against `resent_after_crash` and the in-flight window
#      (chunk size x workers);
#   and the server's resident memory after each (flat in the audience size: compare runs with
#   another DEVICES).
# RICHPUSH=/path/to/richpush picks another binary (default: the debug build).
#
# Usage: benchmarks/campaign.sh [DEVICES=20000] [STREAMS=100] [LATENCY_MS=50]
set -euo pipefail
DEVICES=${1:-20000}
STREAMS=${2:-100}
LATENCY=${3:-50}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RICHPUSH=${RICHPUSH:-$ROOT/.build/debug/richpush}
[ -x "$RICHPUSH" ] || (cd "$ROOT" && swift build --product richpush >/dev/null)
WORK=$(mktemp -d)
MOCK= SERVE=
cleanup() {
  [ -n "$SERVE" ] && kill -9 "$SERVE" 2>/dev/null || true
  [ -n "$MOCK" ] && kill "$MOCK" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

KEYID=ABC123DEFG; TEAM=TEAM123456; TOPIC=com.example.app; TOKEN=bench-admin-token-0123456789
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$WORK/AuthKey_$KEYID.p8"
python3 "$ROOT/Tests/Support/mock_apns.py" --key "$WORK/AuthKey_$KEYID.p8" --key-id "$KEYID" --team-id "$TEAM" --topic "$TOPIC" \
  --ca-out "$WORK/ca.pem" --delay-ms "$LATENCY" --initial-streams 1 --max-streams "$STREAMS" > "$WORK/mock.out" 2>"$WORK/mock.err" &
MOCK=$!
for _ in $(seq 1 100); do grep -q '^CA ' "$WORK/mock.out" 2>/dev/null && break; sleep 0.1; done
MOCKPORT=$(sed -n 's/^PORT //p' "$WORK/mock.out")

start_serve() {
  "$RICHPUSH" serve --port 0 --db "$WORK/bench.sqlite" --admin-token "$TOKEN" --apns-key "$WORK/AuthKey_$KEYID.p8" \
    --apns-team-id "$TEAM" --apns-topic "$TOPIC" --apns-url "https://127.0.0.1:$MOCKPORT" --apns-ca-file "$WORK/ca.pem" \
    --campaign-lease-seconds 3 > "$WORK/serve.out" 2> "$WORK/serve.err" &
  SERVE=$!
  for _ in $(seq 1 300); do grep -q '^PORT ' "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
  PORT=$(sed -n 's/^PORT //p' "$WORK/serve.out")
}
api() { curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' "$@"; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
rss() { ps -o rss= -p "$SERVE" | awk '{printf "%.0f MB", $1 / 1024}'; }
mock_counts() { curl -s --http2 --cacert "$WORK/ca.pem" "https://127.0.0.1:$MOCKPORT/stats" > "$WORK/$1.json"; }

start_serve
# The devices, registered straight in the store (POST /v1/devices one by one would time the registrations).
python3 - "$WORK/bench.sqlite" "$DEVICES" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=30)
db.executemany("INSERT INTO devices (device_token, provider, platform, registered_at_ms) VALUES (?, 'apns', 'ios', 1)",
               (("%064x" % (i + 1),) for i in range(int(sys.argv[2]))))
db.commit()
EOF
python3 -c "
import json
tokens = ['%064x' % (i + 1) for i in range($DEVICES)]
for n in range(0, len(tokens), 10000):
    json.dump({'push_id': 'bench-pushes', 'tokens': tokens[n:n + 10000], 'title': 't', 'body': 'b'}, open('$WORK/pushes-%d.json' % (n // 10000), 'w'))
"

t0=$(date +%s.%N)
for f in "$WORK"/pushes-*.json; do api -o /dev/null -X POST --data-binary "@$f" "http://127.0.0.1:$PORT/v1/pushes"; done
t1=$(date +%s.%N)
REF=$(python3 -c "print($DEVICES / ($t1 - $t0))")

run_campaign() {
  local name=$1 kill_at=$2
  local id t0 t1 state
  t0=$(date +%s.%N)
  id=$(api -X POST -d "{\"audience\": {\"all\": true}, \"push_id\": \"$name\", \"title\": \"t\", \"body\": \"b\"}" \
    "http://127.0.0.1:$PORT/v1/campaigns" | field campaign_id)
  while true; do
    api "http://127.0.0.1:$PORT/v1/campaigns/$id" > "$WORK/c.json"
    state=$(field state < "$WORK/c.json")
    [ "$state" = finished ] && break
    if [ "$kill_at" -gt 0 ] && [ "$(field sent < "$WORK/c.json")" -ge "$kill_at" ]; then
      kill -9 "$SERVE"; wait "$SERVE" 2>/dev/null || true
      start_serve
      kill_at=0
    fi
    sleep 0.05
  done
  t1=$(date +%s.%N)
  RATE=$(python3 -c "print($DEVICES / ($t1 - $t0))")
  RESENT=$(field resent_after_crash < "$WORK/c.json")
}

run_campaign bench-campaign 0
CAMPAIGN=$RATE
MEM1=$(rss)
mock_counts before
run_campaign bench-kill $((DEVICES / 2))
KILLED=$RATE
MEM2=$(rss)
mock_counts after
TWICE=$(python3 -c "
import json
before = json.load(open('$WORK/before.json'))['per_token']; after = json.load(open('$WORK/after.json'))['per_token']
print(sum(1 for t, n in after.items() if n - before.get(t, 0) >= 2))")

python3 -c "
bound = $STREAMS / ($LATENCY / 1000)
print('| run | tokens/s | of POST /v1/pushes | of the bound ($STREAMS streams / $LATENCY ms) | sent twice (mock) | resent_after_crash | in-flight window | serve RSS after |')
print('|---|---|---|---|---|---|---|---|')
print(f'| POST /v1/pushes, 10,000 per request | {$REF:,.0f} | 100% | {$REF / bound:.0%} | | | | |')
print(f'| campaign, $DEVICES devices | {$CAMPAIGN:,.0f} | {$CAMPAIGN / $REF:.0%} | {$CAMPAIGN / bound:.0%} | | | | $MEM1 |')
print(f'| campaign, kill -9 at 50 % and restart | {$KILLED:,.0f} | {$KILLED / $REF:.0%} | {$KILLED / bound:.0%} | $TWICE | $RESENT | 1,000 (500 x 2 workers) | $MEM2 |')
"
