#!/usr/bin/env bash
# The main job: installs what is missing, builds richpush, and runs the extension pipeline
# (`richpush simulate`) on article 000's payload against the bundled local media server, so you
# see a real attachment being made and a real receipt (push_id=2018001) being posted.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build --product richpush 2>&1 | tail -n 1
BIN="$(swift build --show-bin-path)/richpush"

work="$(mktemp -d "${TMPDIR:-/tmp}/richpush-main.XXXXXX")"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT

# The bundled media + receipts server binds 127.0.0.1 on a free port and prints "PORT n" first.
python3 Tests/Support/media_server.py >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
port=""
for _ in $(seq 1 100); do
  port="$(sed -n 's/^PORT \([0-9]*\)$/\1/p' "$work/server.out" | head -n 1)"
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "main: the media server did not start: $(cat "$work/server.err")" >&2; exit 1; }
base="http://127.0.0.1:$port"

# Article 000's payload, its image URL pointed at the local server (photo.jpg, 89,696 bytes).
sed -E "s#https://[^\"]+#$base/media/photo.jpg#" Tests/Fixtures/payloads/seed000-image-and-stats.json >"$work/payload.json"

echo "== payload ($work/payload.json)"
cat "$work/payload.json"
echo
echo "== richpush simulate (what the user would see)"
"$BIN" simulate "$work/payload.json" --allow-http-host 127.0.0.1 --receipts-url "$base/receipts" --out "$work/attachments"
echo
echo "== what the receipts listener received"
curl -s "$base/receipts/log"
echo
echo
echo "Try the misbehaving routes of Tests/Support/media_server.py too, e.g. a server that never answers:"
sed -E "s#https://[^\"]+#$base/hang#" Tests/Fixtures/payloads/seed000-image-and-stats.json >"$work/hang.json"
echo "\$ richpush simulate hang.json --allow-http-host 127.0.0.1 --deadline 2 --json"
"$BIN" simulate "$work/hang.json" --allow-http-host 127.0.0.1 --deadline 2 --json
