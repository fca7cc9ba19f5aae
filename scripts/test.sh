#!/usr/bin/env bash
# Runs every test: installs what is missing, builds with warnings as errors, runs swift test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build "$@"
