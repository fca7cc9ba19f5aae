#!/usr/bin/env bash
# Renders the dashboard with realistic demo data and saves screenshots: the dashboard (default
# docs/dashboard.png) and one push's page (docs/dashboard-push.png next to it).
# Starts the tests' mock APNs (Tests/Support/mock_apns.py, throwaway CA and .p8 key) and
# `richpush serve` pointed at it on a throwaway database; posts receipts for 40 older campaign
# pushes (so the table has pages), then scripts/demo-receipts.py sends each demo push with
# POST /v1/pushes (so the funnel shows sent -> accepted -> delivered -> opened) and posts its
# receipts for ~30 s; then headless Chromium signs in through the real login form (same origin,
# as a user does: the server refuses logins from other origins) and takes the screenshots
# (scripts/dashboard-screenshot.py over the DevTools pipe). RICHPUSH_BIN=path uses that richpush
# instead of a release build. Needs Debian `chromium` (scripts/install-deps.sh). Loopback only.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-docs/dashboard.png}
PUSH_OUT="${OUT%.png}-push.png"
bash scripts/install-deps.sh
BIN=${RICHPUSH_BIN:-}
if [ -z "$BIN" ]; then
  swift build -c release --product richpush >/dev/null
  BIN=$(swift build -c release --show-bin-path)/richpush
fi
WORK=$(mktemp -d /tmp/richpush-shot.XXXXXX)
PID=""; APNS_PID=""; IMAGES_PID=""
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; [ -n "$APNS_PID" ] && kill "$APNS_PID" 2>/dev/null; [ -n "$IMAGES_PID" ] && kill "$IMAGES_PID" 2>/dev/null; rm -rf "$WORK"' EXIT
wait_port() {  # FILE: waits for its "PORT n" line, prints n
  for _ in $(seq 200); do grep -q '^PORT ' "$1" 2>/dev/null && break; sleep 0.05; done
  awk '/^PORT /{print $2; exit}' "$1"
}
# Mock APNs: a fresh P-256 key, a throwaway CA, some tokens answered 410 / BadDeviceToken.
KEY_ID=DEMO123456; TEAM_ID=DEMOTEAM01; TOPIC=com.example.demo
openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out "$WORK/AuthKey_$KEY_ID.p8"
python3 scripts/demo-receipts.py --write-apns-script "$WORK/apns-script.json"
python3 Tests/Support/mock_apns.py --key "$WORK/AuthKey_$KEY_ID.p8" --key-id "$KEY_ID" --team-id "$TEAM_ID" \
  --topic "$TOPIC" --ca-out "$WORK/ca.pem" --script "$WORK/apns-script.json" >"$WORK/apns-out" 2>"$WORK/apns-err" &
APNS_PID=$!
APNS_PORT=$(wait_port "$WORK/apns-out")
[ -n "$APNS_PORT" ] || { echo "dashboard-screenshot: mock APNs did not start:" >&2; cat "$WORK/apns-err" >&2; exit 1; }
# The pushes' images on a local https host (a throwaway CA): JPEG, WebP, HEIC, a 3150 × 2100 JPEG
# (over 300 KB and 2048 px), and a 404: the server checks each before sending and, with its media
# edge, sends optimised JPEGs (docs/media-at-send.md), so the dashboard shows what that saved.
mkdir -p "$WORK/images"
cp Tests/Fixtures/media/photo.jpg Tests/Fixtures/media/photo.heic "$WORK/images/"
cp Tests/Fixtures/media/photo.webp "$WORK/images/spring-sale.webp"
cp Tests/Fixtures/media/photo.webp "$WORK/images/sticker.webp"
vips resize Tests/Fixtures/media/photo.jpg "$WORK/images/large.jpg[Q=95]" 3.5
python3 Tests/Support/probe_media_server.py "$WORK/images" --tls-ca-out "$WORK/images-ca.pem" >"$WORK/images-out" 2>"$WORK/images-err" &
IMAGES_PID=$!
IMAGES_PORT=$(wait_port "$WORK/images-out")
[ -n "$IMAGES_PORT" ] || { echo "dashboard-screenshot: image host did not start:" >&2; cat "$WORK/images-err" >&2; exit 1; }
TOKEN=screenshot-$(openssl rand -hex 16)
"$BIN" serve --port 0 --db "$WORK/demo.sqlite" --admin-token "$TOKEN" \
  --apns-key "$WORK/AuthKey_$KEY_ID.p8" --apns-key-id "$KEY_ID" --apns-team-id "$TEAM_ID" --apns-topic "$TOPIC" \
  --apns-url "https://127.0.0.1:$APNS_PORT" --apns-ca-file "$WORK/ca.pem" \
  --media-store-bytes 100000000 --media-public-url https://push.example.com \
  --media-allow-host 127.0.0.1 --media-ca-file "$WORK/images-ca.pem" >"$WORK/out" 2>"$WORK/err" &
PID=$!
PORT=$(wait_port "$WORK/out")
[ -n "$PORT" ] || { echo "dashboard-screenshot: richpush serve did not start:" >&2; cat "$WORK/err" >&2; exit 1; }
# Older campaigns (a few receipts each), so the table has more than one page.
python3 - "http://127.0.0.1:$PORT/v1/receipts" <<'PY'
import sys, urllib.request
for i in range(40):
    for d in range(3 + i % 5):
        body = f"push_id=campaign-2026-11-{i:02d}&receipt_id=d{d}&outcome=media_attached&elapsed_ms={300 + 40 * d}".encode()
        urllib.request.urlopen(urllib.request.Request(sys.argv[1], data=body), timeout=10).read()
PY
python3 scripts/demo-receipts.py --url "http://127.0.0.1:$PORT/v1/receipts" --seconds 30 --admin-token "$TOKEN" \
  --image-host "https://127.0.0.1:$IMAGES_PORT"
mkdir -p "$(dirname "$OUT")"
python3 scripts/dashboard-screenshot.py --server "http://127.0.0.1:$PORT" --token "$TOKEN" \
  --out "$OUT" --push spring-sale --push-out "$PUSH_OUT"
