#!/usr/bin/env bash
# Runs every test: checks the code style, installs what is missing, builds with warnings as errors,
# runs swift test.
set -euo pipefail
cd "$(dirname "$0")/.."
# One code style (.swift-format): a file that drifts fails here with swift-format's message
# (file:line:column and the rule). To fix: bash scripts/format.sh
swift format lint --strict --recursive --parallel Sources Tests Examples Package.swift
bash scripts/install-deps.sh
swift build --build-tests -Xswiftc -warnings-as-errors
# The tests' scratch files (attachments, child-process output, shared containers) go to a tmpfs
# when there is one: their timing bounds ("delivered before the deadline") are about the
# pipeline, not about a disk that a concurrent build is flushing.
if [ -z "${RICHPUSH_TEST_TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
    RICHPUSH_TEST_TMPDIR=$(mktemp -d /dev/shm/richpush-test.XXXXXX)
    trap 'rm -rf "$RICHPUSH_TEST_TMPDIR"' EXIT
fi
TMPDIR=${RICHPUSH_TEST_TMPDIR:-${TMPDIR:-/tmp}} swift test --skip-build "$@"
