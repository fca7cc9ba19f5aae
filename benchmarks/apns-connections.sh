#!/usr/bin/env bash
# RichPush's HTTP/2 client (issue 27) against h2load (the same libnghttp2 underneath: what is left
# is ours) and aioapns (PyPI), each given the same connections and streams, against
# benchmarks/mock-apns (C, libnghttp2 + OpenSSL, one epoll thread, built here with make) answering
# each request LATENCY ms after it arrived. Every run is against a fresh mock, so its counts are
# that run's alone. Printed per run: tokens/s against the bound (connections x streams /
# latency), CPU time (user + sys of the whole client process, /usr/bin/time) per notification and
# against h2load's in the same row group, peak memory, and the mock's counts (tokens sent twice,
# stream-limit violations).
#
# Tables:
#   1. STREAMS 100 and 1,000, connections 1, 2, 4, 8, LATENCY ms: richpush send, aioapns, h2load.
#      Tokens: TOKENS for 100 streams, 5 x TOKENS for 1,000, raised to 4 s at the bound (at most
#      200,000), so process start and the last answers weigh little; aioapns gets at most
#      AIOAPNS_TOKENS (it answers ~1,000/s: a full run would take minutes) and its rate is
#      measured after its warm-up send.
#   2. No delay, one connection of 100 streams: richpush send against h2load (rate and CPU).
#   3. richpush send against Apple's stream limit (1 until a connection's first SETTINGS change,
#      then STREAMS), 1, 2, 4 connections.
#   4. richpush send against nghttp2's default rapid-reset limit (1,000 RST_STREAM, then 33/s, then
#      GOAWAY): RichPush never resets a finished stream, so no GOAWAY comes.
#   5. Memory: richpush send of 100,000 and of 1,000,000 tokens, no delay, 4 connections of 500:
#      peak RSS of both (flat: the tokens are streamed from the file, never held).
#
# What each figure covers: richpush, the wall time and CPU of the whole command (process start,
# key load, TLS handshakes, the last answer, writing every result line); aioapns, from after its
# first answer to the last, CPU of the whole process; h2load, its own "finished in" and the CPU of
# its process. h2load sends one token again and again (it has one URL), richpush a file of
# distinct tokens.
# RICHPUSH=/path/to/richpush picks another binary (default: the release build, built if missing);
# QUICK=1 runs only 100 streams with 1 and 4 connections in table 1 and skips table 5.
#
# Usage: benchmarks/apns-connections.sh [TOKENS=20000] [LATENCY_MS=50]
set -euo pipefail
TOKENS=${1:-20000}
LATENCY=${2:-50}
AIOAPNS_TOKENS=${AIOAPNS_TOKENS:-10000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RICHPUSH=${RICHPUSH:-$ROOT/.build/release/richpush}
[ -x "$RICHPUSH" ] || (cd "$ROOT" && swift build -c release --product richpush >/dev/null)
make -s -C "$ROOT/benchmarks/mock-apns" >/dev/null || { echo "cannot build benchmarks/mock-apns: apt-get install libnghttp2-dev libssl-dev (scripts/install-deps.sh)" >&2; exit 1; }
command -v h2load >/dev/null || { echo "h2load is missing: apt-get install nghttp2-client (scripts/install-deps.sh)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing: apt-get install time" >&2; exit 1; }
WORK=$(mktemp -d)
MOCK=
cleanup() { [ -n "$MOCK" ] && kill "$MOCK" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

KEYID=ABC123DEFG; TEAM=TEAM123456; TOPIC=com.example.app
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$WORK/AuthKey_$KEYID.p8"
TOKEN=$(printf '%064x' 1)
echo '{"aps":{"alert":{"title":"t","body":"b"}}}' > "$WORK/payload.json"
# tokens N: a file of N distinct tokens ($WORK/tokens-N.txt), made once.
tokens() {
  [ -f "$WORK/tokens-$1.txt" ] || python3 -c "
import sys
with open('$WORK/tokens-$1.txt', 'w') as f:
    for i in range(1, $1 + 1): f.write('%064x\n' % i)"
  echo "$WORK/tokens-$1.txt"
}

# start_mock ARGS…: a fresh mock; sets PORT.
start_mock() {
  "$ROOT/benchmarks/mock-apns/mock-apns" --key "$WORK/AuthKey_$KEYID.p8" --key-id "$KEYID" --team-id "$TEAM" --topic "$TOPIC" \
    --ca-out "$WORK/ca.pem" "$@" > "$WORK/mock.out" 2>"$WORK/mock.err" &
  MOCK=$!
  for _ in $(seq 1 200); do grep -q '^CA ' "$WORK/mock.out" 2>/dev/null && break; sleep 0.1; done
  PORT=$(sed -n 's/^PORT //p' "$WORK/mock.out")
  [ -n "$PORT" ] || { echo "the mock did not start:" >&2; cat "$WORK/mock.err" >&2; exit 1; }
}
# stop_mock: prints "accepted tokens_sent_twice real_violations goaways_sent resets_received mock_cpu_s" and stops the mock.
stop_mock() {
  local cpu
  cpu=$(awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$MOCK/stat")
  curl -s --http2 --cacert "$WORK/ca.pem" "https://127.0.0.1:$PORT/stats?per_token=0" |
    python3 -c "import json,sys; d=json.load(sys.stdin); print(d['accepted'], d['tokens_sent_twice'], d['stream_limit_violations'] - d['refused_streams'], d['goaways_sent'], d['resets_received'], '$cpu')"
  kill "$MOCK"; wait "$MOCK" 2>/dev/null || true; MOCK=
}
# timed FILE CMD…: runs CMD under /usr/bin/time; FILE gets "wall user sys maxrss_kb".
timed() { local out=$1; shift; /usr/bin/time -f "%e %U %S %M" -o "$out" "$@"; }

# richpush N STREAMS COUNT [url scheme]: sends COUNT distinct tokens; sets RATE CPU_US RSS_MB.
richpush() {
  local file; file=$(tokens "$3")
  timed "$WORK/time" "$RICHPUSH" send --key "$WORK/AuthKey_$KEYID.p8" --team-id "$TEAM" --topic "$TOPIC" --apns-url "https://127.0.0.1:$PORT" \
    --ca-file "$WORK/ca.pem" --tokens "$file" --title t --body b --concurrency "$2" --apns-connections "$1" \
    > "$WORK/send.out" 2> "$WORK/send.err" || { echo "richpush send failed:" >&2; tail -3 "$WORK/send.err" >&2; exit 1; }
  read -r RATE CPU_US RSS_MB < <(python3 -c "
w, u, s, m = open('$WORK/time').read().split()[-4:]
print($3 / float(w), (float(u) + float(s)) * 1e6 / $3, int(m) // 1024)")
}
# h2load N STREAMS COUNT: sets RATE CPU_US RSS_MB.
h2load_run() {
  local jwt out
  jwt=$(python3 "$ROOT/benchmarks/make_jwt.py" "$WORK/AuthKey_$KEYID.p8" "$KEYID" "$TEAM")
  timed "$WORK/time" h2load -c "$1" -m "$2" -n "$3" -d "$WORK/payload.json" -H "authorization: bearer $jwt" -H "apns-topic: $TOPIC" \
    -H "apns-push-type: alert" "https://127.0.0.1:$PORT/3/device/$TOKEN" > "$WORK/h2load.out" 2>&1
  out=$(sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p' "$WORK/h2load.out")
  read -r RATE CPU_US RSS_MB < <(python3 -c "
w, u, s, m = open('$WORK/time').read().split()[-4:]
print('${out:-0}', (float(u) + float(s)) * 1e6 / $3, int(m) // 1024)")
}
# aioapns N STREAMS COUNT: sets RATE CPU_US RSS_MB.
aioapns_run() {
  local out
  timed "$WORK/time" python3 "$ROOT/benchmarks/aioapns_client.py" --port "$PORT" --ca "$WORK/ca.pem" --key "$WORK/AuthKey_$KEYID.p8" \
    --count "$3" --token "$TOKEN" --payload "$WORK/payload.json" --concurrency $(($1 * $2)) --connections "$1" > "$WORK/aioapns.out" 2>/dev/null
  out=$(sed -n 's/^RATE \([0-9.]*\).*/\1/p' "$WORK/aioapns.out")
  read -r RATE CPU_US RSS_MB < <(python3 -c "
w, u, s, m = open('$WORK/time').read().split()[-4:]
print('${out:-0}', (float(u) + float(s)) * 1e6 / $3, int(m) // 1024)")
}
# row CLIENT N STREAMS TOKENS RATE CPU_US H2LOAD_CPU_US RSS_MB ACCEPTED TWICE VIOLATIONS GOAWAYS RESETS MOCK_CPU
row() {
  python3 -c "
rate = float('$5'); bound = $2 * $3 / ($LATENCY / 1000) if $LATENCY else 0
of_bound = f'{rate / bound:.0%}' if bound else '-'
cpu = float('$6'); ref = float('$7' or 0)
vs = f'{cpu / ref:.2f}×' if ref else '-'
print(f'| $1 | $2 | $3 | {int(\"$4\"):,} | {rate:,.0f} | {bound:,.0f} | {of_bound} | {cpu:.1f} µs | {vs} | $8 MB | $9 | ${10} | ${11} | ${12} | ${13} | ${14} s |')"
}
header() {
  echo "| client | connections | streams | tokens | tokens/s | bound | of the bound | CPU per notification | CPU vs h2load | peak RSS | accepted (mock) | tokens sent twice | stream-limit violations | GOAWAYs (mock) | RST_STREAM received (mock) | mock CPU |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
}

echo "richpush $("$RICHPUSH" --version 2>/dev/null | head -1), h2load $(h2load --version | head -1 | awk '{print $2}'), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo
echo "1. Answers $LATENCY ms after each request; every client the same connections and streams:"
echo
header
STREAM_SET="100 1000"; CONN_SET="1 2 4 8"
[ "${QUICK:-0}" = 1 ] && { STREAM_SET=100; CONN_SET="1 4"; }
for STREAMS in $STREAM_SET; do
  BASE=$TOKENS; [ "$STREAMS" -ge 1000 ] && BASE=$((TOKENS * 5))
  for N in $CONN_SET; do
    # At least 4 s at the bound (a command's start and its last answers weigh little), at most 200,000.
    COUNT=$(( N * STREAMS * 4000 / LATENCY )); [ "$COUNT" -lt "$BASE" ] && COUNT=$BASE; [ "$COUNT" -gt 200000 ] && COUNT=200000
    AIO=$(( COUNT < AIOAPNS_TOKENS ? COUNT : AIOAPNS_TOKENS ))
    start_mock --max-streams "$STREAMS" --delay-ms "$LATENCY" --stream-reset-limit 0
    h2load_run "$N" "$STREAMS" "$COUNT"; H_RATE=$RATE; H_CPU=$CPU_US; H_RSS=$RSS_MB
    read -r A T V G R M < <(stop_mock)
    start_mock --max-streams "$STREAMS" --delay-ms "$LATENCY" --stream-reset-limit 0
    richpush "$N" "$STREAMS" "$COUNT"
    read -r A2 T2 V2 G2 R2 M2 < <(stop_mock)
    row "richpush send" "$N" "$STREAMS" "$COUNT" "$RATE" "$CPU_US" "$H_CPU" "$RSS_MB" "$A2" "$T2" "$V2" "$G2" "$R2" "$M2"
    row "h2load" "$N" "$STREAMS" "$COUNT" "$H_RATE" "$H_CPU" "$H_CPU" "$H_RSS" "$A" "- (one token)" "$V" "$G" "$R" "$M"
    start_mock --max-streams "$STREAMS" --delay-ms "$LATENCY" --stream-reset-limit 0
    aioapns_run "$N" "$STREAMS" "$AIO"
    read -r A T V G R M < <(stop_mock)
    row "aioapns" "$N" "$STREAMS" "$AIO" "$RATE" "$CPU_US" "$H_CPU" "$RSS_MB" "$A" "- (one token)" "$V" "$G" "$R" "$M"
  done
done

echo
echo "2. No delay, one connection of 100 streams, $((TOKENS * 5)) notifications:"
echo
header
start_mock --max-streams 100 --stream-reset-limit 0
h2load_run 1 100 $((TOKENS * 5)); H_RATE=$RATE; H_CPU=$CPU_US; H_RSS=$RSS_MB
read -r A T V G R M < <(stop_mock)
start_mock --max-streams 100 --stream-reset-limit 0
richpush 1 100 $((TOKENS * 5))
read -r A2 T2 V2 G2 R2 M2 < <(stop_mock)
LATENCY_SAVED=$LATENCY; LATENCY=0
row "richpush send" 1 100 $((TOKENS * 5)) "$RATE" "$CPU_US" "$H_CPU" "$RSS_MB" "$A2" "$T2" "$V2" "$G2" "$R2" "$M2"
row "h2load" 1 100 $((TOKENS * 5)) "$H_RATE" "$H_CPU" "$H_CPU" "$H_RSS" "$A" "- (one token)" "$V" "$G" "$R" "$M"
python3 -c "print(f'\nrichpush send at {float(\"$RATE\") / float(\"$H_RATE\"):.0%} of h2load\'s rate, {float(\"$CPU_US\") / float(\"$H_CPU\"):.2f}× its CPU per notification')"
LATENCY=$LATENCY_SAVED

echo
echo "3. richpush send against Apple's stream limit (1 until a connection's first answer, then 100), $LATENCY ms:"
echo
header
for N in 1 2 4; do
  start_mock --initial-streams 1 --max-streams 100 --delay-ms "$LATENCY" --stream-reset-limit 0
  richpush "$N" 100 "$TOKENS"
  read -r A2 T2 V2 G2 R2 M2 < <(stop_mock)
  row "richpush send" "$N" 100 "$TOKENS" "$RATE" "$CPU_US" "" "$RSS_MB" "$A2" "$T2" "$V2" "$G2" "$R2" "$M2"
done

echo
echo "4. richpush send against nghttp2's default rapid-reset limit (1,000 RST_STREAM, then 33/s, then GOAWAY) and Apple's stream limit, $LATENCY ms:"
echo
header
for N in 1 4; do
  start_mock --initial-streams 1 --max-streams 100 --delay-ms "$LATENCY"
  richpush "$N" 100 "$TOKENS"
  read -r A2 T2 V2 G2 R2 M2 < <(stop_mock)
  row "richpush send" "$N" 100 "$TOKENS" "$RATE" "$CPU_US" "" "$RSS_MB" "$A2" "$T2" "$V2" "$G2" "$R2" "$M2"
done

if [ "${QUICK:-0}" != 1 ]; then
  echo
  echo "5. Memory: no delay, 4 connections of 500 streams:"
  echo
  header
  LATENCY=0
  for COUNT in 100000 1000000; do
    start_mock --max-streams 500 --stream-reset-limit 0
    richpush 4 500 "$COUNT"
    read -r A2 T2 V2 G2 R2 M2 < <(stop_mock)
    row "richpush send" 4 500 "$COUNT" "$RATE" "$CPU_US" "" "$RSS_MB" "$A2" "$T2" "$V2" "$G2" "$R2" "$M2"
  done
fi
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
