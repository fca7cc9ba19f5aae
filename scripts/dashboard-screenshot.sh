#!/usr/bin/env bash
# Renders the dashboard with realistic demo data and saves a screenshot (default docs/dashboard.png).
# Starts `richpush serve` on a throwaway database, posts demo receipts for ~30 s
# (scripts/demo-receipts.py), signs in through the login form in headless Chromium, screenshots.
# Needs Debian `chromium` (installed here if missing; the tests never need it). Loopback only.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-docs/dashboard.png}
if ! command -v chromium >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
bash scripts/install-deps.sh
swift build -c release --product richpush >/dev/null
BIN=$(swift build -c release --show-bin-path)/richpush
WORK=$(mktemp -d /tmp/richpush-shot.XXXXXX)
PID=""
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$WORK"' EXIT
TOKEN=screenshot-$(date +%s)
"$BIN" serve --port 0 --db "$WORK/demo.sqlite" --admin-token "$TOKEN" >"$WORK/out" 2>"$WORK/err" &
PID=$!
for _ in $(seq 100); do grep -q '^PORT ' "$WORK/out" 2>/dev/null && break; sleep 0.05; done
PORT=$(awk '/^PORT /{print $2; exit}' "$WORK/out")
python3 scripts/demo-receipts.py --url "http://127.0.0.1:$PORT/v1/receipts" --seconds 30
# The login form POSTs the token; the server answers 303 + cookie, Chromium follows to /.
cat >"$WORK/login.html" <<HTML
<!doctype html><form id="f" method="post" action="http://127.0.0.1:$PORT/login"><input name="token" value="$TOKEN"></form>
<script>document.getElementById('f').submit()</script>
HTML
mkdir -p "$(dirname "$OUT")"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,1340 \
  --run-all-compositor-stages-before-draw \
  --virtual-time-budget=5000 --screenshot="$OUT" "file://$WORK/login.html" 2>/dev/null
echo "dashboard-screenshot: wrote $OUT"
