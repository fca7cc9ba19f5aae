#!/usr/bin/env bash
# Formats every Swift file of the project in place with the toolchain's swift-format and the
# root .swift-format, then runs the same strict lint as scripts/test.sh (what formatting alone
# cannot fix, e.g. a rule about names, is printed with file:line:column).
set -euo pipefail
cd "$(dirname "$0")/.."
swift format format --in-place --recursive --parallel Sources Tests Examples Package.swift
swift format lint --strict --recursive --parallel Sources Tests Examples Package.swift
