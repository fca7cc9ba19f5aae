#!/usr/bin/env bash
# The main job: installs what is missing, builds richpush (release), starts the statistics server
# (`richpush serve`) on the embedded SQLite store ./richpush.sqlite, then runs a short demo that
# ends in a full funnel — sent → accepted → delivered → opened — and a display rate for pushes
# sent three ways, with no real Apple or Google credentials: the bundled mocks play APNs
# (Tests/Support/mock_apns.py: HTTP/2, TLS with a throwaway CA, the JWT verified) and FCM
# (Tests/Support/mock_fcm.py: the OAuth2 token exchange and messages:send).
#
#   1. Two iPhones register their device tokens (POST /v1/devices), one bound to a user id.
#   2. Article 000's image push (push id 2018001-<run>) goes out with POST /v1/pushes through
#      APNs to three tokens, one of which APNs answers 410 Unregistered. Its image is a WebP on
#      the brand's image host (iOS attaches no WebP): the server's media check (docs/media-at-send.md)
#      probes it before the first token, makes a JPEG of at most 300 KB, stores it in its media
#      edge (GET /m/<sha256>.jpg) and sends that URL instead.
#   3. The two phones run the real notification service extension (`richpush simulate`) on the
#      payload APNs got, fetch the edge's JPEG and post their receipts; one user opens it.
#   4. Article 001's image push goes out through FCM ("provider": "fcm") with a 12 MB JPEG (over
#      Apple's 10 MB image limit; made here with libvips): optimised the same way; the phone that
#      gets it attaches the edge's JPEG and posts its receipt.
#   5. Pushes sent by other systems (OneSignal, Braze) get their sends recorded (`richpush
#      record-send`); the phones run the extension on the payloads as those vendors deliver them,
#      and the receipts carry the vendor's message id (OneSignal's custom.i) and vendor.
#   6. A message from a person: POST /v1/pushes with "sender" and "conversation" (a group); the
#      phone's extension shows it as a communication notification — the sender's name, the
#      group's name, the avatars fetched within the deadline (the sender's WebP converted) and
#      handed over as data — and its receipt reaches the server.
#   7. A second push to the same tokens skips the one APNs called Unregistered.
# Then `richpush stats` shows the funnels, and the script prints the dashboard URL, the admin
# token and curl examples, and keeps the server in the foreground until Ctrl-C (graceful:
# everything acknowledged is committed). The demo's files stay in ./.richpush-demo (gitignored).
#
# Environment:
#   PORT=9090                  the server's port (default: 8080, else the next free one up to 8099)
#   DB=./other.sqlite          the SQLite file (default ./richpush.sqlite)
#   RICHPUSH_ADMIN_TOKEN=…     keep one admin token across runs (default: the server makes one)
#   RICHPUSH_BIN=path          use that richpush instead of building the release one
# The demo's server always sends to the mocks; for real devices run `richpush serve` (or
# scripts/serve.sh) with your own --apns-* / --fcm-* settings (docs/sending.md, "Send a push").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
BIN="${RICHPUSH_BIN:-}"
if [ -z "$BIN" ]; then
  echo "== building richpush (release)…"
  swift build -c release --product richpush 2>&1 | tail -n 1
  BIN="$(swift build -c release --show-bin-path)/richpush"
fi
echo "== richpush doctor Examples: the example app's Xcode project (service + content extension) checked before any push"
"$BIN" doctor Examples | sed 's/^/  /'
DB="${DB:-./richpush.sqlite}"
demo="./.richpush-demo"
mkdir -p "$demo"
rm -rf "$demo/attachments"

work="$(mktemp -d "${TMPDIR:-/tmp}/richpush-main.XXXXXX")"
server_pid=""; media_pid=""; apns_pid=""; fcm_pid=""; cdn_pid=""
stop() { if [ -n "$1" ]; then kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; fi; }
cleanup() {
  stop "$media_pid"; stop "$apns_pid"; stop "$fcm_pid"; stop "$cdn_pid"
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
  for _ in $(seq 1 300); do
    port="$(sed -n 's/^PORT \([0-9]*\)$/\1/p' "$out" 2>/dev/null | head -n 1)"
    if [ -n "$port" ]; then echo "$port"; return 0; fi
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
}
json_field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# 0. The mocks: APNs (a fresh P-256 key, a throwaway CA) and FCM (a fresh RSA service account).
run_id="$(date +%m%d-%H%M%S)"
device() { printf '%s' "$run_id-$1" | sha256sum | cut -c1-64; }   # a 64-hex device token per run
phone_a="$(device phone-a)"; phone_b="$(device phone-b)"; old_phone="$(device old-phone)"
user="u-$run_id"   # a user of this run (a database kept from earlier runs has others)
KEY_ID=DEMO123456; TEAM_ID=DEMOTEAM01; TOPIC=com.example.richpush.demo
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$work/AuthKey_$KEY_ID.p8"
echo "{\"$old_phone\": [{\"status\": 410, \"reason\": \"Unregistered\", \"timestamp\": $(( $(date +%s) * 1000 - 86400000 ))}]}" > "$work/apns-script.json"
python3 Tests/Support/mock_apns.py --key "$work/AuthKey_$KEY_ID.p8" --key-id "$KEY_ID" --team-id "$TEAM_ID" --topic "$TOPIC" \
  --ca-out "$work/apns-ca.pem" --script "$work/apns-script.json" >"$work/apns.out" 2>"$work/apns.err" &
apns_pid=$!
apns_port="$(wait_for_port "$work/apns.out" "$apns_pid")"
[ -n "$apns_port" ] || { echo "main: the mock APNs did not start: $(cat "$work/apns.err")" >&2; exit 1; }
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/fcm-key.pem" 2>/dev/null
python3 Tests/Support/mock_fcm.py --key "$work/fcm-key.pem" --client-email demo@richpush-demo.iam.gserviceaccount.com \
  --project richpush-demo >"$work/fcm.out" 2>"$work/fcm.err" &
fcm_pid=$!
fcm_port="$(wait_for_port "$work/fcm.out" "$fcm_pid")"
[ -n "$fcm_port" ] || { echo "main: the mock FCM did not start: $(cat "$work/fcm.err")" >&2; exit 1; }
python3 - "$work/fcm-key.pem" "$fcm_port" > "$work/service-account.json" <<'PY'
import json, sys
print(json.dumps({"type": "service_account", "project_id": "richpush-demo",
                  "client_email": "demo@richpush-demo.iam.gserviceaccount.com",
                  "private_key": open(sys.argv[1]).read(), "token_uri": f"http://127.0.0.1:{sys.argv[2]}/token"}))
PY
apns_args=(--apns-key "$work/AuthKey_$KEY_ID.p8" --apns-key-id "$KEY_ID" --apns-team-id "$TEAM_ID" --apns-topic "$TOPIC"
           --apns-url "https://127.0.0.1:$apns_port" --apns-ca-file "$work/apns-ca.pem")
fcm_args=(--fcm-service-account "$work/service-account.json" --fcm-url "http://127.0.0.1:$fcm_port")
device_secret="$(openssl rand -hex 32)"

# The brand's image host (https, a throwaway CA the server is told to trust): a WebP, which iOS
# refuses to attach, and a 12 MB JPEG (4300 × 2900 at Q97, over Apple's 10 MB image limit), made
# here with libvips (not committed: 12 MB).
cdn_dir="$work/cdn"
mkdir -p "$cdn_dir"
cp Tests/Fixtures/media/photo.webp "$cdn_dir/spring-sale.webp"
vips gaussnoise "$work/noise.v" 4300 2900 --sigma 40 --mean 128
vips bandjoin "$work/noise.v $work/noise.v $work/noise.v" "$work/noise3.v"
vips cast "$work/noise3.v" "$work/noise3u.v" uchar
vips jpegsave "$work/noise3u.v" "$cdn_dir/poster-12mb.jpg" --Q 97
rm -f "$work/noise.v" "$work/noise3.v" "$work/noise3u.v"
python3 Tests/Support/probe_media_server.py "$cdn_dir" --tls-ca-out "$work/cdn-ca.pem" >"$work/cdn.out" 2>"$work/cdn.err" &
cdn_pid=$!
cdn_port="$(wait_for_port "$work/cdn.out" "$cdn_pid")"
[ -n "$cdn_port" ] || { echo "main: the image host did not start: $(cat "$work/cdn.err")" >&2; exit 1; }
cdn="https://127.0.0.1:$cdn_port/f"
# The media edge: optimised copies kept in the store (at most 100 MB), served at /m/<sha256>.jpg.
# Devices reach it at an https address (iOS's App Transport Security); this demo has no TLS proxy
# in front, so the edge's URLs say https://127.0.0.1:PORT and the simulated phones below fetch the
# same path over http. --media-allow-host opens the loopback image host to the server's probe
# (no server-side request forgery otherwise), --media-ca-file trusts its throwaway CA.
media_args=(--media-store-bytes 100000000 --media-allow-host 127.0.0.1 --media-ca-file "$work/cdn-ca.pem")

# 1. The statistics server: PORT if given, else 8080 or the next free port.
if [ -n "${PORT:-}" ]; then candidates="$PORT"; else candidates="$(seq 8080 8099)"; fi
port=""
for candidate in $candidates; do
  "$BIN" serve --host 127.0.0.1 --port "$candidate" --db "$DB" \
    "${apns_args[@]}" "${fcm_args[@]}" --device-secret "$device_secret" \
    "${media_args[@]}" --media-public-url "https://127.0.0.1:$candidate" >"$work/serve.out" 2>"$work/serve.err" &
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
admin=(-H "Authorization: Bearer $token")
echo
echo "== richpush serve is running (pid $server_pid), APNs and FCM played by the bundled mocks"
sed -n '2,$p' "$work/serve.out" | grep -v "admin token" || true

# The bundled media server (127.0.0.1, a free port).
python3 Tests/Support/media_server.py >"$work/media.out" 2>"$work/media.err" &
media_pid=$!
media_port="$(wait_for_port "$work/media.out" "$media_pid")"
[ -n "$media_port" ] || { echo "main: the media server did not start: $(cat "$work/media.err")" >&2; exit 1; }
media="http://127.0.0.1:$media_port"

# What the phones get: the payload with the edge's https URLs fetched over http (no TLS proxy here).
edge_https="https://127.0.0.1:$port/m/"
edge_http="http://127.0.0.1:$port/m/"
on_phone() { # IN OUT: IN's edge URLs as the phone reaches them
  python3 - "$1" "$2" "$edge_https" "$edge_http" <<'PY'
import json, sys
def walk(v):
    if isinstance(v, dict): return {k: walk(x) for k, x in v.items()}
    if isinstance(v, list): return [walk(x) for x in v]
    if isinstance(v, str) and v.startswith(sys.argv[3]): return sys.argv[4] + v[len(sys.argv[3]):]
    return v
json.dump(walk(json.load(open(sys.argv[1]))), open(sys.argv[2], "w"), ensure_ascii=False)
PY
}
# One line per media URL the server checked: what the probe found, what it sent.
media_report='"\n".join("  media %s: %s → %s%s" % (m["url"], m["reason"] or "attachable", m["action"], " (%s, %d bytes: %s)" % (m["optimized_type"], m["optimized_bytes"], m["sent_url"]) if m.get("sent_url") else "") for m in d.get("media", []))'

# Runs the extension on a payload as one phone (its own state: install id, receipt queue).
simulate_on() { # PHONE PAYLOAD LINES: prints the first LINES lines of what the phone shows
  "$BIN" simulate "$2" --allow-http-host 127.0.0.1 --receipts-url "$base/v1/receipts" \
    --state "$demo/state-$1" --out "$demo/attachments/$1" >"$work/simulate-$1.out" 2>>"$demo/simulate.log" \
    || { cat "$demo/simulate.log" >&2; echo "main: richpush simulate failed (see above)" >&2; exit 1; }
  sed -n "1,${3}p" "$work/simulate-$1.out" | sed "s/^/  $1: /"
}

echo
echo "== 1. two iPhones register their device tokens (POST /v1/devices; the backend binds one to user $user)"
registered='"  %s… %s, platform %s, user %s" % (d["token"][:8], "registered" if d["created"] else "registered again", d["platform"], d["user_id"] or "none")'
curl -sS -H 'Content-Type: application/json' -d "{\"token\":\"$phone_a\",\"platform\":\"ios\",\"app_version\":\"2.4.1\"}" "$base/v1/devices" \
  | json_field "$registered"
curl -sS "${admin[@]}" -H 'Content-Type: application/json' \
  -d "{\"token\":\"$phone_b\",\"platform\":\"ios\",\"user_id\":\"$user\",\"app_version\":\"2.4.1\"}" "$base/v1/devices" | json_field "$registered"

push_apns="2018001-$run_id"
echo
echo "== 2. article 000's image push, push id $push_apns, through APNs to phone A, an old token, and user $user (phone B) (POST /v1/pushes)"
echo "  its image: $cdn/spring-sale.webp (WebP: the server's media check optimises it before sending)"
sed -E -e "s#https://[^\"]+#$cdn/spring-sale.webp#" -e "s#\"2018001\"#\"$push_apns\"#" \
  Tests/Fixtures/payloads/seed000-image-and-stats.json > "$work/payload-apns.json"
python3 - "$work/payload-apns.json" "$phone_a" "$old_phone" "$user" > "$work/push-apns.json" <<'PY'
import json, sys
print(json.dumps({"tokens": [sys.argv[2], sys.argv[3]], "user_ids": [sys.argv[4]], "payload": json.load(open(sys.argv[1]))}))
PY
curl -sS "${admin[@]}" -H 'Content-Type: application/json' --data-binary @"$work/push-apns.json" "$base/v1/pushes" \
  | json_field '"  sent %d, accepted %d, skipped %d\n" % (d["sent"], d["accepted"], d["skipped"]) + "\n".join("  %s… %s%s" % (r["token"][:8], r["outcome"], " " + r["reason"] if r["reason"] else "") for r in d["results"]) + "\n" + '"$media_report"

echo
echo "== 3. the phones show it (the real service extension on the payload APNs got: the edge's JPEG) and post receipts"
curl -sS --http2 --cacert "$work/apns-ca.pem" "https://127.0.0.1:$apns_port/stats" \
  | python3 -c 'import base64, json, sys; sys.stdout.buffer.write(base64.b64decode(json.load(sys.stdin)["last_body_b64"]))' > "$work/apns-got.json"
echo "  what APNs got: $(cat "$work/apns-got.json")"
on_phone "$work/apns-got.json" "$work/delivered-apns.json"
simulate_on phone-a "$work/delivered-apns.json" 99
simulate_on phone-b "$work/delivered-apns.json" 1
echo "  the user of phone B opens it:"
curl -sS -o /dev/null -w "  POST /v1/receipts (event opened) → %{http_code}\n" -H 'Content-Type: application/json' \
  -d "{\"push_id\":\"$push_apns\",\"event\":\"opened\",\"receipt_id\":\"phone-b-$run_id\"}" "$base/v1/receipts"

push_fcm="fcm-$run_id"
echo
echo "== 4. article 001's image push through FCM (\"provider\": \"fcm\"), push id $push_fcm"
echo "  its image: $cdn/poster-12mb.jpg ($(stat -c %s "$cdn_dir/poster-12mb.jpg") bytes: over Apple's 10 MB, the extension would give up)"
curl -sS "${admin[@]}" -H 'Content-Type: application/json' \
  -d "{\"provider\":\"fcm\",\"push_id\":\"$push_fcm\",\"tokens\":[\"fcm-phone-$run_id:APA91b\",\"unregistered-$run_id\"],\"title\":\"Push通知テスト\",\"image\":\"$cdn/poster-12mb.jpg\"}" \
  "$base/v1/pushes" | json_field '"  sent %d, accepted %d (%s)\n" % (d["sent"], d["accepted"], ", ".join(r["outcome"] + (" " + r["reason"] if r["reason"] else "") for r in d["results"])) + '"$media_report"
curl -sS "http://127.0.0.1:$fcm_port/stats" | python3 -c "
import json, sys
print(json.dumps(json.load(sys.stdin)['last_delivered'], ensure_ascii=False))" > "$work/fcm-got.json"
on_phone "$work/fcm-got.json" "$work/delivered-fcm.json"
echo "  what the phone gets from FCM: $(cat "$work/fcm-got.json")"
simulate_on fcm-phone "$work/delivered-fcm.json" 2

# 5. Pushes other systems sent, as they reach the phone: a OneSignal payload (its notification id
# in custom.i, its image in att) and a Braze payload (its image in ab.att.url; Braze's id key is
# not verified, so the sender adds push_id as a key-value pair). The real extension reads both
# out of the box, and its receipts carry the vendor's id and vendor=onesignal / braze.
push_os="$(python3 -c 'import uuid; print(uuid.uuid4())')"
push_braze="braze-$run_id"
echo
echo "== 5. pushes OneSignal and Braze sent: sends recorded (richpush record-send), the phones show their payloads as delivered"
RICHPUSH_ADMIN_TOKEN="$token" "$BIN" record-send "$push_os" --server "$base" --batch-id "os-notification-$run_id" \
  --source onesignal --sent 2 --accepted 2 --title "Spring sale" | sed 's/^/  /'
RICHPUSH_ADMIN_TOKEN="$token" "$BIN" record-send "$push_braze" --server "$base" --batch-id "braze-send-$run_id" \
  --source braze --sent 2 --accepted 2 --title "Spring sale" | sed 's/^/  /'
python3 - Tests/Fixtures/payloads/vendors "$work" "$media/media/photo.jpg" "$push_os" "$push_braze" <<'PY'
import json, sys
vendors, work, image, push_os, push_braze = sys.argv[1:]
onesignal = json.load(open(f"{vendors}/onesignal.json"))
onesignal["custom"]["i"] = push_os
onesignal["att"] = {"id": image}
braze = json.load(open(f"{vendors}/braze.json"))
braze["ab"]["att"]["url"] = image
braze["push_id"] = push_braze
for name, payload in (("onesignal", onesignal), ("braze", braze)):
    json.dump(payload, open(f"{work}/delivered-{name}.json", "w"), ensure_ascii=False)
PY
echo "  OneSignal's payload: $(cat "$work/delivered-onesignal.json")"
simulate_on phone-a "$work/delivered-onesignal.json" 5
simulate_on phone-b "$work/delivered-onesignal.json" 1
echo "  Braze's payload: $(cat "$work/delivered-braze.json")"
simulate_on phone-a "$work/delivered-braze.json" 5
echo "  the user of phone A opens the OneSignal push:"
curl -sS -o /dev/null -w "  POST /v1/receipts (event opened, vendor onesignal) → %{http_code}\n" \
  -d "push_id=$push_os&event=opened&receipt_id=phone-a-os-$run_id&vendor=onesignal" "$base/v1/receipts"

push_message="message-$run_id"
echo
echo "== 6. a message from a person, push id $push_message: POST /v1/pushes with sender and conversation (a group), through APNs to phone A"
cp Tests/Fixtures/media/photo.webp "$cdn_dir/ada.webp"
cp Tests/Fixtures/media/logo.png "$cdn_dir/engine-room.png"
curl -sS "${admin[@]}" -H 'Content-Type: application/json' \
  -d "{\"push_id\":\"$push_message\",\"tokens\":[\"$phone_a\"],\"title\":\"Engine room\",\"body\":\"Ada: the new engine runs!\",\"sender\":{\"id\":\"u-ada\",\"name\":\"Ada Lovelace\",\"avatar\":\"$cdn/ada.webp\"},\"conversation\":{\"id\":\"c-engine-room\",\"name\":\"Engine room\",\"avatar\":\"$cdn/engine-room.png\",\"group\":true}}" \
  "$base/v1/pushes" | json_field '"  sent %d, accepted %d" % (d["sent"], d["accepted"])'
curl -sS --http2 --cacert "$work/apns-ca.pem" "https://127.0.0.1:$apns_port/stats" \
  | python3 -c 'import base64, json, sys; sys.stdout.buffer.write(base64.b64decode(json.load(sys.stdin)["last_body_b64"]))' > "$work/apns-message.json"
echo "  what APNs got: $(cat "$work/apns-message.json")"
# The avatars as the phone reaches them (the image host's throwaway CA is the server's, not the phone's).
python3 - "$work/apns-message.json" "$work/delivered-message.json" "$cdn" "$media/media" <<'PY'
import json, sys
payload = json.load(open(sys.argv[1]))
names = {"ada.webp": "photo.webp", "engine-room.png": "logo.png"}
for key in ("sender", "conversation"):
    url = payload[key]["avatar"]
    payload[key]["avatar"] = sys.argv[4] + "/" + names[url[len(sys.argv[3]) + 1:]]
json.dump(payload, open(sys.argv[2], "w"), ensure_ascii=False)
PY
simulate_on phone-a "$work/delivered-message.json" 99

echo
echo "== 7. a second push to the same tokens: the one APNs called Unregistered is skipped"
curl -sS "${admin[@]}" -H 'Content-Type: application/json' \
  -d "{\"push_id\":\"reminder-$run_id\",\"tokens\":[\"$phone_a\",\"$old_phone\"],\"title\":\"Reminder\",\"body\":\"The sale ends tonight\"}" \
  "$base/v1/pushes" | json_field '"  sent %d, accepted %d, skipped %d: %s" % (d["sent"], d["accepted"], d["skipped"], next((r["message"] for r in d["results"] if r["outcome"] == "skipped"), ""))'
echo "{\"aps\":{\"alert\":{\"title\":\"Reminder\",\"body\":\"The sale ends tonight\"}},\"push_id\":\"reminder-$run_id\"}" > "$work/delivered-reminder.json"
simulate_on phone-a "$work/delivered-reminder.json" 1

echo
echo "== the funnels: richpush stats (sent → accepted → delivered → opened, display rate = delivered / accepted)"
RICHPUSH_ADMIN_TOKEN="$token" "$BIN" stats --server "$base" --limit 6 || true
echo
RICHPUSH_ADMIN_TOKEN="$token" "$BIN" stats "$push_apns" --server "$base" || true

cat <<EOF

== next
Dashboard:    $base/    (log in with the admin token)
Admin token:  $token
Figures:      curl -H 'Authorization: Bearer $token' $base/v1/pushes/$push_apns
A receipt:    curl -i -d push_id=$push_apns $base/v1/receipts
Send a push:  curl -H 'Authorization: Bearer $token' -H 'Content-Type: application/json' \\
                -d '{"tokens":["$phone_a"],"title":"Hello","body":"From RichPush","image":"https://…/photo.jpg"}' $base/v1/pushes
              (this server sends to the mock APNs and FCM; start richpush serve with your own --apns-* / --fcm-* settings for real devices)
Record sends: richpush record-send PUSH_ID --batch-id ID --source onesignal --sent 1200 --accepted 1180
Database:     $DB    (the extension's log lines: $demo/simulate.log)

The server keeps running; Ctrl-C stops it (requests in flight finish, everything is committed).
EOF

# The media server and the image host were only for the demo; the mocks stay for the server's sends.
stop "$media_pid"; media_pid=""; stop "$cdn_pid"; cdn_pid=""

# Keep the server in the foreground until Ctrl-C / SIGTERM, then let it shut down gracefully.
trap 'kill -TERM "$server_pid" 2>/dev/null || true' INT TERM
tail -n +1 -f "$work/serve.err" --pid "$server_pid" >&2 &
tail_pid=$!
while kill -0 "$server_pid" 2>/dev/null; do
  wait "$server_pid" 2>/dev/null || true
done
wait "$tail_pid" 2>/dev/null || true
server_pid=""
stop "$apns_pid"; apns_pid=""; stop "$fcm_pid"; fcm_pid=""
echo "main: the server stopped."
