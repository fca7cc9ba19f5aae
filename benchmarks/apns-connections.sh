#!/usr/bin/env bash
# Tokens/s with 1, 2 and 4 HTTP/2 connections against a mock APNs answering each request LATENCY
# ms after it arrived with STREAMS streams per connection, for three clients in one run: `richpush
# send --apns-connections N --concurrency STREAMS`, aioapns (PyPI, its pool of N connections, N x
# STREAMS sends in flight: benchmarks/aioapns_client.py) and h2load (Debian nghttp2-client: -c N
# -m STREAMS). The bound is N x STREAMS / latency; each figure is printed against it (the ratio is
# what to compare; the rate itself depends on the machine). Every run is against a fresh mock that
# advertises STREAMS from the start (h2load, like any nghttp2 client, opens up to 100 streams
# before the server's SETTINGS arrive, so it cannot be measured against Apple's start-at-one
# limit; richpush against that limit: the second table).
#
# The mock is benchmarks/mock-apns (C, libnghttp2 + OpenSSL, one epoll thread; built here with
# make): it answers ~40,000-50,000 requests/s to h2load on this shared 2-core machine, far above
# the 8,000/s of 4 x 100 / 50 ms. APNS_MOCK=python uses Tests/Support/mock_apns.py instead (one Python
# process, ~800-6,000 answers/s: below the bound, so it measures the mock). The mock's CPU time
# is printed with each row (it must stay well below the run's wall time).
#
# What each figure covers: richpush, the wall time of the whole command (process start, key
# load, TLS handshakes, the last answer); aioapns, from after its first (warm-up) answer to the
# last; h2load, its own "finished in".
# RICHPUSH=/path/to/richpush picks another binary (default: the release build, built if missing).
#
# Usage: benchmarks/apns-connections.sh [TOKENS=20000] [STREAMS=100] [LATENCY_MS=50]
set -euo pipefail
TOKENS=${1:-20000}
STREAMS=${2:-100}
LATENCY=${3:-50}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RICHPUSH=${RICHPUSH:-$ROOT/.build/release/richpush}
[ -x "$RICHPUSH" ] || (cd "$ROOT" && swift build -c release --product richpush >/dev/null)
MOCK_KIND=${APNS_MOCK:-c}
if [ "$MOCK_KIND" = c ]; then
  make -s -C "$ROOT/benchmarks/mock-apns" >/dev/null || { echo "cannot build benchmarks/mock-apns: apt-get install libnghttp2-dev libssl-dev (scripts/install-deps.sh)" >&2; exit 1; }
  # No limit on the client's RST_STREAM frames (nghttp2's rapid-reset protection): libcurl 7.88
  # resets every finished stream, and against nghttp2's default limit the connection gets a
  # GOAWAY every ~1,000 requests (the third table measures that).
  MOCK_CMD=("$ROOT/benchmarks/mock-apns/mock-apns" --stream-reset-limit 0); STATS_PATH="/stats?per_token=0"
else
  MOCK_CMD=(python3 "$ROOT/Tests/Support/mock_apns.py"); STATS_PATH=/stats
fi
command -v h2load >/dev/null || { echo "h2load is missing: apt-get install nghttp2-client (scripts/install-deps.sh)" >&2; exit 1; }
WORK=$(mktemp -d)
MOCK=
cleanup() { [ -n "$MOCK" ] && kill "$MOCK" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

KEYID=ABC123DEFG; TEAM=TEAM123456; TOPIC=com.example.app
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$WORK/AuthKey_$KEYID.p8"
for i in $(seq 1 "$TOKENS"); do printf '%064x\n' "$i"; done > "$WORK/tokens.txt"
TOKEN=$(printf '%064x' 1)
echo '{"aps":{"alert":{"title":"t","body":"b"}}}' > "$WORK/payload.json"

# start_mock ARGS…: a fresh mock; sets PORT.
start_mock() {
  "${MOCK_CMD[@]}" --key "$WORK/AuthKey_$KEYID.p8" --key-id "$KEYID" --team-id "$TEAM" --topic "$TOPIC" \
    --ca-out "$WORK/ca.pem" --delay-ms "$LATENCY" "$@" > "$WORK/mock.out" 2>"$WORK/mock.err" &
  MOCK=$!
  for _ in $(seq 1 200); do grep -q '^CA ' "$WORK/mock.out" 2>/dev/null && break; sleep 0.1; done
  PORT=$(sed -n 's/^PORT //p' "$WORK/mock.out")
  [ -n "$PORT" ] || { echo "the mock did not start:" >&2; cat "$WORK/mock.err" >&2; exit 1; }
}
# stop_mock: prints "accepted device_connections stream_limit_violations tokens_sent_twice goaways_sent
# mock_cpu_s" and stops the mock (the Python mock counts neither duplicates nor its own GOAWAYs: "-").
stop_mock() {
  local cpu
  cpu=$(awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$MOCK/stat")
  curl -s --http2 --cacert "$WORK/ca.pem" "https://127.0.0.1:$PORT$STATS_PATH" |
    python3 -c "import json,sys; d=json.load(sys.stdin); print(d['accepted'], d['device_connections'], d['stream_limit_violations'], d.get('tokens_sent_twice', '-'), d.get('goaways_sent', '-'), '$cpu')"
  kill "$MOCK"; wait "$MOCK" 2>/dev/null || true; MOCK=
}
# row CLIENT N RATE ACCEPTED SEEN VIOLATIONS TWICE GOAWAYS MOCK_CPU
row() {
  python3 -c "
rate = float('$3'); bound = $2 * $STREAMS / ($LATENCY / 1000)
print(f'| $1 | $2 | {rate:,.0f} | {bound:,.0f} | {rate / bound:.0%} | $4 | $5 | $6 | $7 | $8 | $9 s |')"
}
# richpush N: sends every token; prints the rate (wall time of the command).
richpush() {
  local t0 t1
  t0=$(date +%s.%N)
  "$RICHPUSH" send --key "$WORK/AuthKey_$KEYID.p8" --team-id "$TEAM" --topic "$TOPIC" --apns-url "https://127.0.0.1:$PORT" \
    --ca-file "$WORK/ca.pem" --tokens "$WORK/tokens.txt" --title t --body b --concurrency "$STREAMS" --apns-connections "$1" \
    > "$WORK/send.out" 2> "$WORK/send.err" || { echo "richpush send failed:" >&2; tail -3 "$WORK/send.err" >&2; exit 1; }
  t1=$(date +%s.%N)
  python3 -c "print($TOKENS / ($t1 - $t0))"
}

header() {
  echo "| client | connections | tokens/s | bound (connections × $STREAMS streams / $LATENCY ms) | of the bound | accepted (mock) | connections (mock) | stream-limit violations | tokens sent twice | GOAWAYs (mock) | mock CPU |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
}

echo "$TOKENS tokens, $STREAMS streams per connection from the start, answers $LATENCY ms after each request ($MOCK_KIND mock, load average $(cut -d" " -f1-3 /proc/loadavg)):"
echo
header
for N in 1 2 4; do
  start_mock --max-streams "$STREAMS"
  RATE=$(richpush "$N")
  read -r ACCEPTED SEEN VIOLATIONS TWICE GOAWAYS MOCKCPU < <(stop_mock)
  row "richpush send" "$N" "$RATE" "$ACCEPTED" "$SEEN" "$VIOLATIONS" "$TWICE" "$GOAWAYS" "$MOCKCPU"

  start_mock --max-streams "$STREAMS"
  OUT=$(python3 "$ROOT/benchmarks/aioapns_client.py" --port "$PORT" --ca "$WORK/ca.pem" --key "$WORK/AuthKey_$KEYID.p8" \
    --count "$TOKENS" --token "$TOKEN" --payload "$WORK/payload.json" --concurrency $((N * STREAMS)) --connections "$N" 2>/dev/null)
  read -r ACCEPTED SEEN VIOLATIONS TWICE GOAWAYS MOCKCPU < <(stop_mock)
  row "aioapns" "$N" "$(echo "$OUT" | sed -n 's/^RATE \([0-9.]*\).*/\1/p')" "$ACCEPTED" "$SEEN" "$VIOLATIONS" "- (one token)" "$GOAWAYS" "$MOCKCPU"

  start_mock --max-streams "$STREAMS"
  JWT=$(python3 "$ROOT/benchmarks/make_jwt.py" "$WORK/AuthKey_$KEYID.p8" "$KEYID" "$TEAM")
  OUT=$(h2load -c "$N" -m "$STREAMS" -n "$TOKENS" -d "$WORK/payload.json" -H "authorization: bearer $JWT" -H "apns-topic: $TOPIC" \
    -H "apns-push-type: alert" "https://127.0.0.1:$PORT/3/device/$TOKEN" 2>&1)
  read -r ACCEPTED SEEN VIOLATIONS TWICE GOAWAYS MOCKCPU < <(stop_mock)
  row "h2load" "$N" "$(echo "$OUT" | sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p')" "$ACCEPTED" "$SEEN" "$VIOLATIONS" "- (one token)" "$GOAWAYS" "$MOCKCPU"
done

echo
echo "richpush send against Apple's stream limit (1 until a connection's first answer, then $STREAMS):"
echo
header
for N in 1 2 4; do
  start_mock --initial-streams 1 --max-streams "$STREAMS"
  RATE=$(richpush "$N")
  read -r ACCEPTED SEEN VIOLATIONS TWICE GOAWAYS MOCKCPU < <(stop_mock)
  row "richpush send" "$N" "$RATE" "$ACCEPTED" "$SEEN" "$VIOLATIONS" "$TWICE" "$GOAWAYS" "$MOCKCPU"
done

if [ "$MOCK_KIND" = c ]; then
  echo
  echo "richpush send against the mock with nghttp2's default rapid-reset limit (1,000 RST_STREAM, then 33/s; then GOAWAY) and Apple's stream limit:"
  echo
  header
  MOCK_CMD=("$ROOT/benchmarks/mock-apns/mock-apns")
  for N in 1 4; do
    start_mock --initial-streams 1 --max-streams "$STREAMS"
    RATE=$(richpush "$N")
    read -r ACCEPTED SEEN VIOLATIONS TWICE GOAWAYS MOCKCPU < <(stop_mock)
    row "richpush send" "$N" "$RATE" "$ACCEPTED" "$SEEN" "$VIOLATIONS" "$TWICE" "$GOAWAYS" "$MOCKCPU"
  done
fi
echo
echo "load average at the end: $(cut -d" " -f1-3 /proc/loadavg)"
