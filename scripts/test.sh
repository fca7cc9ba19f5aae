#!/usr/bin/env bash
# Runs every test: checks the code style, installs what is missing, checks the Markdown files' links,
# builds with warnings as errors, builds the reference documentation, runs swift test.
set -euo pipefail
cd "$(dirname "$0")/.."
# One code style (.swift-format): a file that drifts fails here with swift-format's message
# (file:line:column and the rule). To fix: bash scripts/format.sh
swift format lint --strict --recursive --parallel Sources Tests Examples Package.swift
bash scripts/install-deps.sh
# Every relative link of the Markdown files (README.md, the guides under docs/, …) resolves,
# #anchors included.
python3 scripts/check-links.py
swift build --build-tests -Xswiftc -warnings-as-errors
# The tests' scratch files (attachments, child-process output, shared containers) go to a tmpfs
# when there is one: their timing bounds ("delivered before the deadline") are about the
# pipeline, not about a disk that a concurrent build is flushing.
if [ -z "${RICHPUSH_TEST_TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
    RICHPUSH_TEST_TMPDIR=$(mktemp -d /dev/shm/richpush-test.XXXXXX)
    trap 'rm -rf "$RICHPUSH_TEST_TMPDIR"' EXIT
fi
export TMPDIR=${RICHPUSH_TEST_TMPDIR:-${TMPDIR:-/tmp}}
if [ $# -gt 0 ]; then
    swift test --skip-build "$@"
    exit
fi
# The reference documentation of the library an app links (DocC, into .build/docs): fails on a
# broken symbol link or a public symbol without a doc comment. About 30 s after the build.
bash scripts/docs.sh
# Two phases. The tests whose assertions are wall-clock bounds (an answer before a deadline, a
# throttle within its window, N connections faster than one) run after the rest, on a machine
# the rest no longer loads: run beside the media encoders and the 100,000-line record-send of the
# first phase, 2 cores leave them short of CPU for seconds at a time. Each still compares with
# its failure's own timescale; none is loosened.
TIMING='UnreachableProviderTests|ServerConformanceTests|FaultConformanceTests|HTTP2ClientBehaviourTests|MisbehavingServerTests|AvatarFaultTests|SimulateMessageTests|DeliveryTests|TransportContractTests|ReceiptTests|AdminTokenTests|SlowClientTests|PostgresDeadlineTests|SQLiteBusyTests|SendConnectionsTests|StreamLimitTests|ServerDurabilityTests|CampaignSQLiteTests|CampaignPostgresTests|MalformedRequestTests|MediaWorkerTimingTests|DoctorTimingTests|MediaFloodTimingTests|WebhookIsolationTests|CampaignFairnessTests|DatabaseClockTests|MessageIntentTests|CommunicationThroughHostTests|BridgeThroughHostTests|MediaCategoryThroughHostTests|OneLineExtensionTests|RichPushCompanionTests|DeepLinkTests'
# The optimiser fuzz (45 s of conversions in worker processes of up to 512 MB each) runs alone
# last: beside it, the extension's own deadlines (5 s, 30 s) fail for want of CPU, not of code.
HEAVY='OptimizerFuzzTests'
swift test --skip-build --skip "$TIMING|$HEAVY"
swift test --skip-build --filter "$TIMING"
swift test --skip-build --filter "$HEAVY"
# The HTTP API as a contract (issue 23): schemathesis fuzzes a real richpush serve (SQLite, then
# PostgreSQL) against openapi.yaml and prints its summary; about 2½ minutes.
bash scripts/fuzz-api.sh
