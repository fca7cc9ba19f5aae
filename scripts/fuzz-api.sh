#!/usr/bin/env bash
# Fuzzes a real `richpush serve` against openapi.yaml with schemathesis (issue 23, item 2), on
# SQLite and on PostgreSQL (a throwaway cluster), and prints schemathesis' summary of each run.
#
# The server runs with the admin token, a mock APNs (Tests/Support/mock_apns.py) and a mock FCM
# (Tests/Support/mock_fcm.py), so POST /v1/pushes really sends; with the media edge on and one
# file seeded (the document's example sha256), so GET/HEAD /m/{sha256}.{ext} answers 200, 206,
# 304 and 416 too. The server's GET /openapi.yaml must be the file. Schemathesis runs every
# operation (examples, coverage, fuzzing, and the stateful links: register a device → delete it;
# send or record a push → read it; create a campaign → read it, its page, cancel it), and checks not_a_server_error,
# status_code_conformance, content_type_conformance, response_schema_conformance and
# response_headers_conformance. Any failure fails the script. The main pass records its requests
# (a HAR file); the script then requires that some requests got through to the work behind the
# links (a created campaign read and cancelled, a push sent and read, a device registered and
# deleted), so a document whose schemas only ever produce refusals fails too.
#
# A second, short pass sends no credential (the admin operations' 401s). POST /login and POST
# /logout run last, in a third short pass with the server's Origin: their wrong tokens count
# toward the per-address throttle, which would answer every later admin request 429.
#
# Bounded: each backend's main pass sends the examples and coverage cases once, then fuzzes and
# follows the links for FUZZ_MAX_TIME seconds (default 40); the two others stop after 10 each;
# FUZZ_MAX_EXAMPLES (default 40) cases per operation and phase. About 3 minutes in all on 2 cores.
#
# Usage: bash scripts/fuzz-api.sh            (builds nothing: uses .build/debug/richpush, or $RICHPUSH_BIN)
#        FUZZ_BACKENDS=sqlite bash scripts/fuzz-api.sh
#        FUZZ_ST_ARGS='--seed 123 --include-path /v1/devices' bash scripts/fuzz-api.sh   (more st arguments; main pass only)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BIN=${RICHPUSH_BIN:-$ROOT/.build/debug/richpush}
BACKENDS=${FUZZ_BACKENDS:-sqlite postgres}
MAX_EXAMPLES=${FUZZ_MAX_EXAMPLES:-40}
MAX_TIME=${FUZZ_MAX_TIME:-40}
TOKEN=fuzz-admin-token-0123456789abcdef
CHECKS=${FUZZ_CHECKS:-not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance}

[ -x "$BIN" ] || { echo "fuzz-api: no richpush binary at $BIN (run swift build first, or set RICHPUSH_BIN)" >&2; exit 1; }
command -v st >/dev/null || { echo "fuzz-api: schemathesis (st) is missing: bash scripts/install-deps.sh" >&2; exit 1; }

BASE=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && BASE=/dev/shm
WORK=$(mktemp -d "$BASE/richpush-fuzz.XXXXXX")
chmod 755 "$WORK"
PIDS=()
PG_DATA=""
PG_BIN=""
as_postgres() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    if [ -n "$PG_DATA" ]; then as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA" -m immediate -w stop >/dev/null 2>&1 || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# Waits for a 'PORT n' line in $1 (a process's stdout), prints n.
wait_port() {
    local file=$1 pid=$2
    for _ in $(seq 1 600); do
        if grep -q '^PORT ' "$file" 2>/dev/null; then sed -n 's/^PORT \([0-9]*\).*/\1/p' "$file" | head -1; return; fi
        kill -0 "$pid" 2>/dev/null || { echo "fuzz-api: process $pid exited: $(cat "$file" "$file.err" 2>/dev/null | tail -20)" >&2; return 1; }
        sleep 0.1
    done
    echo "fuzz-api: no PORT line in $file after 60 s" >&2
    return 1
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The providers: a P-256 .p8 for the mock APNs (TLS with a throwaway CA), an RSA service account for the mock FCM.
openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out "$WORK/AuthKey_ABC123DEFG.p8"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$WORK/sa.pem" 2>/dev/null
python3 Tests/Support/mock_apns.py --key "$WORK/AuthKey_ABC123DEFG.p8" --key-id ABC123DEFG --team-id TEAM123456 \
    --topic com.example.app --ca-out "$WORK/ca.pem" >"$WORK/apns.out" 2>"$WORK/apns.out.err" &
PIDS+=($!)
APNS_PORT=$(wait_port "$WORK/apns.out" "${PIDS[-1]}")
python3 Tests/Support/mock_fcm.py --key "$WORK/sa.pem" --client-email richpush@demo-project.iam.gserviceaccount.com \
    --project demo-project >"$WORK/fcm.out" 2>"$WORK/fcm.out.err" &
PIDS+=($!)
FCM_PORT=$(wait_port "$WORK/fcm.out" "${PIDS[-1]}")
python3 - "$WORK/sa.pem" "$FCM_PORT" >"$WORK/service-account.json" <<'EOF'
import json, sys
print(json.dumps({"type": "service_account", "project_id": "demo-project",
                  "client_email": "richpush@demo-project.iam.gserviceaccount.com",
                  "private_key": open(sys.argv[1]).read(), "token_uri": f"http://127.0.0.1:{sys.argv[2]}/token"}))
EOF

# The seeded media file: its sha256 is the example of /m/{sha256}.{ext} in openapi.yaml.
MEDIA_HEX=$(python3 -c 'print((b"\xff\xd8\xff\xe0RichPush fuzz media " + bytes(range(256))).hex())')
MEDIA_SHA=$(python3 -c "import hashlib, sys; print(hashlib.sha256(bytes.fromhex(sys.argv[1])).hexdigest())" "$MEDIA_HEX")
grep -q "$MEDIA_SHA" openapi.yaml || { echo "fuzz-api: openapi.yaml's /m/{sha256} example is not $MEDIA_SHA" >&2; exit 1; }
MEDIA_ROW="('$MEDIA_SHA', 'jpg', 'image/jpeg', $((${#MEDIA_HEX} / 2)), X'$MEDIA_HEX', 0)"  # SQLite's blob literal

start_postgres() {
    PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    [ -n "$PG_BIN" ] || PG_BIN=$(pg_config --bindir)
    mkdir -p "$WORK/pg/socket"
    [ "$(id -u)" -eq 0 ] && chown -R postgres "$WORK/pg"
    PG_DATA=$WORK/pg/data
    as_postgres "$PG_BIN/initdb" -D "$PG_DATA" -U richpush --auth=trust -E UTF8 --locale=C --no-sync >/dev/null
    # The port was free a moment ago; another process may bind it first (then PostgreSQL cannot
    # and pg_ctl fails): another free port, up to 5 times.
    for attempt in 1 2 3 4 5; do
        PG_PORT=$(free_port)
        if as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$WORK/pg/log" -w -t 60 \
            -o "-p $PG_PORT -k $WORK/pg/socket -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off" start >/dev/null; then
            return
        fi
        echo "fuzz-api: PostgreSQL did not start on port $PG_PORT (attempt $attempt): $(tail -3 "$WORK/pg/log" 2>/dev/null)" >&2
    done
    echo "fuzz-api: PostgreSQL would not start" >&2
    exit 1
}

failed=0
for backend in $BACKENDS; do
    case $backend in
        sqlite) DB=$WORK/fuzz.sqlite ;;
        postgres) start_postgres; DB="postgres://richpush@127.0.0.1:$PG_PORT/postgres" ;;
        *) echo "fuzz-api: unknown backend $backend (sqlite, postgres)" >&2; exit 64 ;;
    esac
    "$BIN" serve --port 0 --db "$DB" --admin-token "$TOKEN" --device-secret fuzz-device-secret-0123456789 \
        --apns-key "$WORK/AuthKey_ABC123DEFG.p8" --apns-team-id TEAM123456 --apns-topic com.example.app \
        --apns-url "https://127.0.0.1:$APNS_PORT" --apns-ca-file "$WORK/ca.pem" \
        --fcm-service-account "$WORK/service-account.json" --fcm-url "http://127.0.0.1:$FCM_PORT" \
        --public-url http://127.0.0.1 --media-store-bytes 1000000 --media-edge-allow-http \
        >"$WORK/serve-$backend.out" 2>"$WORK/serve-$backend.out.err" &
    SERVE_PID=$!
    PIDS+=($SERVE_PID)
    PORT=$(wait_port "$WORK/serve-$backend.out" $SERVE_PID)
    URL=http://127.0.0.1:$PORT
    # The schema exists once serve printed its port; the edge reads the store on every request.
    if [ "$backend" = sqlite ]; then
        python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], timeout=10); c.execute(sys.argv[2]); c.commit()" \
            "$DB" "INSERT INTO media_objects VALUES $MEDIA_ROW"
    else
        "$PG_BIN/psql" -q -X -v ON_ERROR_STOP=1 "$DB" \
            -c "INSERT INTO media_objects VALUES ('$MEDIA_SHA', 'jpg', 'image/jpeg', $((${#MEDIA_HEX} / 2)), decode('$MEDIA_HEX', 'hex'), 0)" >/dev/null
    fi

    # The server's own copy is the file (loaded from the file, schemathesis also fuzzes GET /openapi.yaml,
    # which it leaves out of a document it loaded from that URL).
    curl -fsS "$URL/openapi.yaml" | cmp -s - openapi.yaml ||
        { echo "fuzz-api: GET /openapi.yaml differs from openapi.yaml: rebuild richpush" >&2; exit 1; }

    run_st() {
        local label=$1
        shift
        echo "== fuzz-api: $backend, $label ($URL)"
        # From the work directory: schemathesis' report and example database stay out of the tree.
        if (cd "$WORK" && st run "$ROOT/openapi.yaml" --url "$URL" --checks "$CHECKS" --max-examples "$MAX_EXAMPLES" \
            --generation-database none --generation-with-security-parameters false --no-color --request-timeout 30 \
            --suppress-health-check all "$@"); then
            echo "== fuzz-api: $backend, $label: passed"
        else
            echo "== fuzz-api: $backend, $label: FAILED"
            failed=1
        fi
    }
    # Two runs: the examples and coverage phases go through the document once (no time limit, so
    # a slow machine still sends every example); fuzzing and the stateful links get the time
    # budget to themselves. In one run with --max-time, a loaded machine spent the whole budget
    # on the examples and reached no link (the check below then failed).
    # shellcheck disable=SC2086 # FUZZ_ST_ARGS is a list of words
    run_st "every operation but the session forms: examples and coverage" -H "Authorization: Bearer $TOKEN" --phases examples,coverage \
        --exclude-path /login --exclude-path /logout --report har --report-har-path "$WORK/main-$backend-enumerated.har" ${FUZZ_ST_ARGS:-}
    # shellcheck disable=SC2086 # FUZZ_ST_ARGS is a list of words
    run_st "every operation but the session forms: fuzzing and stateful" -H "Authorization: Bearer $TOKEN" --phases fuzzing,stateful \
        --max-time "$MAX_TIME" --exclude-path /login --exclude-path /logout --report har --report-har-path "$WORK/main-$backend-drawn.har" ${FUZZ_ST_ARGS:-}
    if [ -z "${FUZZ_ST_ARGS:-}" ]; then
        # The operations behind the links must have succeeded at least once (a 2xx), else the
        # stateful phase tested refusals only.
        if ! python3 - "$WORK/main-$backend-enumerated.har" "$WORK/main-$backend-drawn.har" <<'PY'
import json, re, sys
wanted = [("POST", r"/v1/campaigns", "202"), ("GET", r"/v1/campaigns/[0-9a-f-]+", "200"),
          ("POST", r"/v1/campaigns/[0-9a-f-]+/cancel", "200"), ("GET", r"/campaigns/[0-9a-f-]+", "200"),
          ("POST", r"/v1/pushes", "200"), ("GET", r"/v1/pushes/[^/]+", "200"),
          ("POST", r"/v1/devices", "200/201"), ("DELETE", r"/v1/devices/[^/]+", "200")]
seen = {}
for entry in [e for har in sys.argv[1:] for e in json.load(open(har))["log"]["entries"]]:
    path = re.sub(r"^[a-z]+://[^/]+", "", entry["request"]["url"]).split("?")[0]
    for method, pattern, status in wanted:
        if entry["request"]["method"] == method and re.fullmatch(pattern, path) and str(entry["response"]["status"]) in status.split("/"):
            seen[(method, pattern)] = seen.get((method, pattern), 0) + 1
print("== fuzz-api: successes behind the links:", ", ".join(f"{m} {p} {s}: {seen.get((m, p), 0)}" for m, p, s in wanted))
missing = [f"{m} {p} ({s})" for m, p, s in wanted if not seen.get((m, p))]
if missing:
    print("fuzz-api: never answered with success: " + ", ".join(missing), file=sys.stderr)
    sys.exit(1)
PY
        then
            echo "== fuzz-api: $backend: the linked operations never succeeded (above): FAILED"
            failed=1
        fi
        # Without a credential: the admin operations' 401s (JSON, or the login page), the open ones as apps call them.
        run_st "every operation but the session forms, without credentials" --max-time 10 --phases examples,coverage,fuzzing \
            --exclude-path /login --exclude-path /logout
        # No stateful phase: these forms have no links.
        run_st "the session forms" -H "Origin: $URL" --max-time 10 --phases examples,coverage,fuzzing \
            --include-path /login --include-path /logout
    fi

    kill -TERM $SERVE_PID 2>/dev/null || true
    wait $SERVE_PID 2>/dev/null || true
    if [ "$backend" = postgres ]; then
        as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w stop >/dev/null
        PG_DATA=""
    fi
done
if [ $failed -ne 0 ]; then
    echo "fuzz-api: schemathesis found failures (above); fix the server or openapi.yaml" >&2
    exit 1
fi
echo "fuzz-api: every backend passed ($BACKENDS)"
