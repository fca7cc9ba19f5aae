#!/usr/bin/env bash
# Notifications/s on ONE HTTP/2 connection to a local APNs-compatible server:
#   RichPush (`richpush send --tokens`, release build) vs aioapns (PyPI) vs h2load (nghttp2-client, the ceiling).
#
# Two servers, because the Python mock is itself the bottleneck:
#   A. Tests/Support/mock_apns.py (Python h2, verifies the JWT, checks headers): all three clients.
#   B. h2o (Debian h2o, C, one thread) with a 3-line mruby handler that answers 200 and echoes the
#      request's apns-id (aioapns matches responses to requests by that header; nghttpd does not send
#      it) with the body "{}" (aioapns json-parses any DATA frame; real APNs sends none on 200). No
#      JWT check. All three clients.
# Goals: RichPush >= 3x aioapns, RichPush >= 50% of h2load.
# Every client gets the same bound: STREAMS requests in flight (aioapns through a semaphore, see
# aioapns_client.py). Each figure is the best of REPEAT runs (the machine is shared; the best run
# is the least disturbed one). RichPush's CPU time (user + sys, whole process) per notification
# is printed too: it is steadier than the rate on a loaded machine.
# RICHPUSH_BASELINE=/path/to/an/older/richpush adds that binary's figures, measured in the same run.
#
# Usage: [REPEAT=3] [RICHPUSH_BASELINE=BIN] benchmarks/apns-throughput.sh [N=20000] [STREAMS=100]
set -euo pipefail
N=${1:-20000}
STREAMS=${2:-100}
REPEAT=${REPEAT:-3}
BASELINE=${RICHPUSH_BASELINE:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

bash "$ROOT/scripts/install-deps.sh"
(cd "$ROOT" && swift build -c release --product richpush >/dev/null)
RICHPUSH="$ROOT/.build/release/richpush"

KEYID=ABC123DEFG; TEAM=TEAM123456; TOPIC=com.example.app
TOKEN=$(printf 'ab%.0s' $(seq 1 32))
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$WORK/AuthKey_$KEYID.p8"
PAYLOAD="$ROOT/Tests/Fixtures/payloads/seed003-url.json"
python3 -c "import json,sys; sys.stdout.write(json.dumps(json.load(open('$PAYLOAD')),separators=(',',':')))" > "$WORK/payload.json"
for _ in $(seq 1 "$N"); do echo "$TOKEN"; done > "$WORK/tokens.txt"
JWT=$(python3 "$ROOT/benchmarks/make_jwt.py" "$WORK/AuthKey_$KEYID.p8" "$KEYID" "$TEAM")

now() { date +%s.%N; }

best() { sort -n | tail -1; }

richpush_once() { # $1 = binary, $2 = base URL, $3 = CA file; prints "rate cpu_us_per_notification"
  local t0 t1 cpu
  t0=$(now)
  cpu=$( { TIMEFORMAT='%U %S'; time "$1" send --key "$WORK/AuthKey_$KEYID.p8" --team-id "$TEAM" --topic "$TOPIC" --apns-url "$2" --ca-file "$3" \
    --tokens "$WORK/tokens.txt" --payload "$WORK/payload.json" --concurrency "$STREAMS" > "$WORK/richpush.out" 2> "$WORK/richpush.err" || true; } 2>&1 )
  t1=$(now)
  local ok; ok=$(grep -c '"status":200' "$WORK/richpush.out" || true)
  [ "$ok" -eq "$N" ] || { echo "richpush: only $ok of $N accepted" >&2; tail -3 "$WORK/richpush.err" >&2; }
  python3 -c "u, s = '$cpu'.split(); print(round($N / ($t1 - $t0)), round((float(u) + float(s)) * 1e6 / $N))"
}
richpush_rate() { # $1 = binary, $2 = base URL, $3 = CA file; best of REPEAT: "rate cpu_us"
  for _ in $(seq 1 "$REPEAT"); do richpush_once "$@"; done | sort -n | tail -1
}
aioapns_rate() { # $1 = port, $2 = CA file
  for _ in $(seq 1 "$REPEAT"); do
    python3 "$ROOT/benchmarks/aioapns_client.py" --port "$1" --ca "$2" --key "$WORK/AuthKey_$KEYID.p8" --count "$N" \
      --token "$TOKEN" --payload "$WORK/payload.json" --concurrency "$STREAMS" 2>/dev/null | awk '/^RATE/ {print $2}'
  done | best
}
h2load_rate() { # $1 = URL; best of REPEAT
  for _ in $(seq 1 "$REPEAT"); do h2load_once "$1"; done | best
}
h2load_once() { # $1 = URL
  h2load -n "$N" -c 1 -m "$STREAMS" -d "$WORK/payload.json" -H "apns-topic: $TOPIC" -H "apns-push-type: alert" \
    -H "authorization: bearer $JWT" "$1/3/device/$TOKEN" > "$WORK/h2load.out" 2>&1
  grep -q "$N succeeded" "$WORK/h2load.out" || { echo "h2load: not all succeeded" >&2; grep -E "requests:|status codes" "$WORK/h2load.out" >&2; }
  grep -E "^status codes" "$WORK/h2load.out" | grep -q "$N 2xx" || echo "h2load: not all 2xx: $(grep '^status codes' "$WORK/h2load.out")" >&2
  awk '/finished in/ { gsub(",", "", $4); print int($4) }' "$WORK/h2load.out"
}

# --- A: the Python mock APNs ---
python3 "$ROOT/Tests/Support/mock_apns.py" --key "$WORK/AuthKey_$KEYID.p8" --key-id "$KEYID" --team-id "$TEAM" \
  --topic "$TOPIC" --ca-out "$WORK/mock-ca.pem" > "$WORK/mock.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do grep -q '^CA ' "$WORK/mock.out" 2>/dev/null && break; sleep 0.1; done
MOCK_PORT=$(awk '/^PORT/ {print $2}' "$WORK/mock.out")
read -r A_RICHPUSH A_CPU < <(richpush_rate "$RICHPUSH" "https://127.0.0.1:$MOCK_PORT" "$WORK/mock-ca.pem")
[ -z "$BASELINE" ] || read -r A_BASE A_BASE_CPU < <(richpush_rate "$BASELINE" "https://127.0.0.1:$MOCK_PORT" "$WORK/mock-ca.pem")
A_AIOAPNS=$(aioapns_rate "$MOCK_PORT" "$WORK/mock-ca.pem")
A_H2LOAD=$(h2load_rate "https://127.0.0.1:$MOCK_PORT")

# --- B: h2o ---
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$WORK/srv.key" -out "$WORK/srv.pem" \
  -days 1 -subj /CN=127.0.0.1 -addext "subjectAltName=IP:127.0.0.1" 2>/dev/null
H2O_PORT=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
cat > "$WORK/h2o.conf" <<CONF
listen:
  port: $H2O_PORT
  host: 127.0.0.1
  ssl:
    certificate-file: $WORK/srv.pem
    key-file: $WORK/srv.key
num-threads: 1
user: $(id -un)
http2-max-concurrent-requests-per-connection: 1000
hosts:
  default:
    paths:
      /:
        mruby.handler: |
          Proc.new do |env|
            [200, {"apns-id" => (env["HTTP_APNS_ID"] || "00000000-0000-0000-0000-000000000000")}, ["{}"]]
          end
CONF
h2o -c "$WORK/h2o.conf" > "$WORK/h2o.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 50); do (echo > "/dev/tcp/127.0.0.1/$H2O_PORT") 2>/dev/null && break; sleep 0.1; done
read -r B_RICHPUSH B_CPU < <(richpush_rate "$RICHPUSH" "https://127.0.0.1:$H2O_PORT" "$WORK/srv.pem")
[ -z "$BASELINE" ] || read -r B_BASE B_BASE_CPU < <(richpush_rate "$BASELINE" "https://127.0.0.1:$H2O_PORT" "$WORK/srv.pem")
B_AIOAPNS=$(aioapns_rate "$H2O_PORT" "$WORK/srv.pem")
B_H2LOAD=$(h2load_rate "https://127.0.0.1:$H2O_PORT")

ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
echo "APNs throughput, $N notifications, one HTTP/2 connection, $STREAMS concurrent streams, best of $REPEAT ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
echo "A. Python mock APNs (JWT verified): RichPush $A_RICHPUSH/s (${A_CPU} us CPU each)  aioapns ${A_AIOAPNS:-0}/s  h2load $A_H2LOAD/s"
echo "   RichPush / aioapns = $(ratio "$A_RICHPUSH" "${A_AIOAPNS:-0.0001}")x (goal >= 3)   RichPush / h2load = $(ratio "$A_RICHPUSH" "$A_H2LOAD") (goal >= 0.50)"
echo "B. h2o (C, no JWT check):           RichPush $B_RICHPUSH/s (${B_CPU} us CPU each)  aioapns ${B_AIOAPNS:-0}/s  h2load $B_H2LOAD/s"
echo "   RichPush / aioapns = $(ratio "$B_RICHPUSH" "${B_AIOAPNS:-0.0001}")x (goal >= 3)   RichPush / h2load = $(ratio "$B_RICHPUSH" "$B_H2LOAD") (goal >= 0.50)"
if [ -n "$BASELINE" ]; then
  echo "Baseline $BASELINE, same run: A $A_BASE/s (${A_BASE_CPU} us CPU each)   B $B_BASE/s (${B_BASE_CPU} us CPU each)"
  echo "   this build / baseline on B: rate $(ratio "$B_RICHPUSH" "$B_BASE")x, CPU per notification $(ratio "$B_CPU" "$B_BASE_CPU")x"
fi
