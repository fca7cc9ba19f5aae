#!/usr/bin/env bash
# The main job: installs what is missing, builds richpush (release), starts the statistics server
# (`richpush serve`) on the embedded SQLite store ./richpush.sqlite, then runs a short demo so you
# see a real attachment and a real receipt land: the extension pipeline (`richpush simulate`) on
# the example payload from the source article (an image notification with push id 2018001), its
# image served by the bundled local media server, its receipt posted to the server. The demo's
# files stay in ./.richpush-demo (gitignored): state/ (install id and receipt queue, so a second
# run is recognised as the same push and not counted twice), attachments/ (the attachment shown),
# simulate.log (the extension's structured log line). Then it prints the dashboard URL, the admin token and curl examples, and keeps
# the server in the foreground until Ctrl-C (graceful: everything acknowledged is committed).
#
# Environment:
#   PORT=9090                  the server's port (default: 8080, else the next free one up to 8099)
#   DB=./other.sqlite          the SQLite file (default ./richpush.sqlite)
#   RICHPUSH_ADMIN_TOKEN=…     keep one admin token across runs (default: the server makes one)
#   RICHPUSH_APNS_KEY, RICHPUSH_APNS_KEY_ID, RICHPUSH_APNS_TEAM_ID, RICHPUSH_APNS_TOPIC
#   [RICHPUSH_APNS_SANDBOX=1]  turn on POST /v1/pushes (sending through APNs); without them it answers 503
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
echo "== building richpush (release)…"
swift build -c release --product richpush 2>&1 | tail -n 1
BIN="$(swift build -c release --show-bin-path)/richpush"
DB="${DB:-./richpush.sqlite}"
# The demo's own files, kept after exit: the simulated device's state (stable receipt_id per push)
# and the attachment it showed (the previous run's attachments are replaced).
demo="./.richpush-demo"
mkdir -p "$demo/state"
rm -rf "$demo/attachments"

work="$(mktemp -d "${TMPDIR:-/tmp}/richpush-main.XXXXXX")"
server_pid=""
media_pid=""
cleanup() {
  if [ -n "$media_pid" ]; then kill "$media_pid" 2>/dev/null || true; wait "$media_pid" 2>/dev/null || true; fi
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# Waits for "PORT n" as the first line of a server's output; prints n, or nothing if it exited.
wait_for_port() {
  local out="$1" pid="$2" port=""
  for _ in $(seq 1 200); do
    port="$(sed -n 's/^PORT \([0-9]*\)$/\1/p' "$out" | head -n 1)"
    if [ -n "$port" ]; then echo "$port"; return 0; fi
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
}

# 1. The statistics server: PORT if given, else 8080 or the next free port.
if [ -n "${PORT:-}" ]; then candidates="$PORT"; else candidates="$(seq 8080 8099)"; fi
port=""
for candidate in $candidates; do
  "$BIN" serve --host 127.0.0.1 --port "$candidate" --db "$DB" >"$work/serve.out" 2>"$work/serve.err" &
  server_pid=$!
  port="$(wait_for_port "$work/serve.out" "$server_pid")"
  [ -n "$port" ] && break
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
done
if [ -z "$port" ]; then
  echo "main: richpush serve did not start on ${PORT:-8080…8099}: $(cat "$work/serve.err")" >&2
  echo "main: choose a free port with PORT=NNNN bash scripts/main.sh" >&2
  exit 1
fi
base="http://127.0.0.1:$port"
token="${RICHPUSH_ADMIN_TOKEN:-$(sed -n 's/^.*admin token (generated[^:]*: \([0-9a-f]*\)$/\1/p' "$work/serve.out" | head -n 1)}"
echo
echo "== richpush serve is running (pid $server_pid)"
sed -n '2,$p' "$work/serve.out" | grep -v "admin token" || true

# 2. The bundled media server (127.0.0.1, a free port, prints "PORT n" first).
python3 Tests/Support/media_server.py >"$work/media.out" 2>"$work/media.err" &
media_pid=$!
media_port="$(wait_for_port "$work/media.out" "$media_pid")"
[ -n "$media_port" ] || { echo "main: the media server did not start: $(cat "$work/media.err")" >&2; exit 1; }
media="http://127.0.0.1:$media_port"

# 3. The source article's example payload, its image URL pointed at the local server (photo.jpg, 89,696 bytes).
sed -E "s#https://[^\"]+#$media/media/photo.jpg#" Tests/Fixtures/payloads/seed000-image-and-stats.json >"$work/payload.json"
echo
echo "== payload: the source article's example (an image notification, push id 2018001), image on the local media server"
cat "$work/payload.json"
echo
echo "== richpush simulate (what the user would see), receipt to $base/v1/receipts"
"$BIN" simulate "$work/payload.json" --allow-http-host 127.0.0.1 --receipts-url "$base/v1/receipts" \
  --state "$demo/state" --out "$demo/attachments" 2>"$demo/simulate.log" \
  || { cat "$demo/simulate.log" >&2; echo "main: richpush simulate failed (see above)" >&2; exit 1; }
echo
echo "== the extension's log line and messages (standard error, kept in $demo/simulate.log)"
cat "$demo/simulate.log"
echo "(state in $demo/state: run this script again and the same push is a duplicate, not a second delivery)"
echo
echo "== what the server recorded for push 2018001"
RICHPUSH_ADMIN_TOKEN="$token" "$BIN" stats 2018001 --server "$base" || true

cat <<EOF

== next
Dashboard:    $base/    (log in with the admin token)
Admin token:  $token
Figures:      curl -H 'Authorization: Bearer $token' $base/v1/pushes/2018001
A receipt:    curl -i -d push_id=2018001 $base/v1/receipts
Send a push:  curl -H 'Authorization: Bearer $token' -H 'Content-Type: application/json' \\
                -d '{"tokens":["<device token hex>"],"title":"Hello","body":"From RichPush","image":"https://…/photo.jpg"}' \\
                $base/v1/pushes
              (needs RICHPUSH_APNS_KEY / _KEY_ID / _TEAM_ID / _TOPIC when starting; otherwise it answers 503)
Database:     $DB

The server keeps running; Ctrl-C stops it (requests in flight finish, everything is committed).
EOF

# The media server was only for the demo.
kill "$media_pid" 2>/dev/null || true
wait "$media_pid" 2>/dev/null || true
media_pid=""

# 4. Keep the server in the foreground until Ctrl-C / SIGTERM, then let it shut down gracefully.
trap 'kill -TERM "$server_pid" 2>/dev/null || true' INT TERM
tail -n +1 -f "$work/serve.err" --pid "$server_pid" >&2 &
tail_pid=$!
while kill -0 "$server_pid" 2>/dev/null; do
  wait "$server_pid" 2>/dev/null || true
done
wait "$tail_pid" 2>/dev/null || true
server_pid=""
echo "main: the server stopped."
