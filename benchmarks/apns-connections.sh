#!/usr/bin/env bash
# Tokens/s of `richpush send --apns-connections N` for N = 1, 2, 4 against Tests/Support/mock_apns.py
# answering each request LATENCY ms after it arrived, with Apple's stream limit (1 until the first
# answer on a connection, then STREAMS): the bound is N x STREAMS / latency, and each figure is
# printed against it (the ratio is what to compare; the rate itself depends on the machine).
# All three runs are in the same run of this script, each against a fresh mock.
# The rate here is far below what the CPU allows (latency-bound), so the debug build measures the
# same as a release one; RICHPUSH=/path/to/richpush picks another binary.
#
# Usage: benchmarks/apns-connections.sh [TOKENS=3000] [STREAMS=20] [LATENCY_MS=50]
set -euo pipefail
TOKENS=${1:-3000}
STREAMS=${2:-20}
LATENCY=${3:-50}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RICHPUSH=${RICHPUSH:-$ROOT/.build/debug/richpush}
[ -x "$RICHPUSH" ] || (cd "$ROOT" && swift build --product richpush >/dev/null)
WORK=$(mktemp -d)
MOCK=
cleanup() { [ -n "$MOCK" ] && kill "$MOCK" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

KEYID=ABC123DEFG; TEAM=TEAM123456; TOPIC=com.example.app
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$WORK/AuthKey_$KEYID.p8"
for i in $(seq 1 "$TOKENS"); do printf '%064x\n' "$i"; done > "$WORK/tokens.txt"

echo "| connections | tokens/s | bound (connections × $STREAMS streams / $LATENCY ms) | of the bound | connections seen by the mock |"
echo "|---|---|---|---|---|"
for N in 1 2 4; do
  python3 "$ROOT/Tests/Support/mock_apns.py" --key "$WORK/AuthKey_$KEYID.p8" --key-id "$KEYID" --team-id "$TEAM" --topic "$TOPIC" \
    --ca-out "$WORK/ca.pem" --delay-ms "$LATENCY" --initial-streams 1 --max-streams "$STREAMS" > "$WORK/mock.out" 2>"$WORK/mock.err" &
  MOCK=$!
  for _ in $(seq 1 100); do grep -q '^CA ' "$WORK/mock.out" 2>/dev/null && break; sleep 0.1; done
  PORT=$(sed -n 's/^PORT //p' "$WORK/mock.out")
  t0=$(date +%s.%N)
  "$RICHPUSH" send --key "$WORK/AuthKey_$KEYID.p8" --team-id "$TEAM" --topic "$TOPIC" --apns-url "https://127.0.0.1:$PORT" \
    --ca-file "$WORK/ca.pem" --tokens "$WORK/tokens.txt" --title t --body b --concurrency "$STREAMS" --apns-connections "$N" \
    > "$WORK/send.out" 2> "$WORK/send.err" || { echo "richpush send failed:" >&2; tail -3 "$WORK/send.err" >&2; exit 1; }
  t1=$(date +%s.%N)
  SEEN=$(curl -s --http2 --cacert "$WORK/ca.pem" "https://127.0.0.1:$PORT/stats" | python3 -c "import json,sys; print(json.load(sys.stdin)['device_connections'])")
  kill "$MOCK"; wait "$MOCK" 2>/dev/null || true; MOCK=
  python3 -c "
rate = $TOKENS / ($t1 - $t0); bound = $N * $STREAMS / ($LATENCY / 1000)
print(f'| $N | {rate:,.0f} | {bound:,.0f} | {rate / bound:.0%} | $SEEN |')"
done
