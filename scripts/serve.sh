#!/usr/bin/env bash
# Runs the statistics server in the foreground: installs what is missing, builds the release
# binary, then `richpush serve` on the embedded SQLite store (./richpush.sqlite by default).
# Extra arguments go to `richpush serve` (e.g. --port 9090 --admin-token TOKEN).
# Stop it with Ctrl-C (SIGINT) or SIGTERM: requests in flight finish, everything is committed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build -c release --product richpush >&2
exec "$(swift build -c release --show-bin-path)/richpush" serve "$@"
