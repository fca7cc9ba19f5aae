#!/usr/bin/env bash
# Builds the reference documentation of the library an app links: RichPushNotificationService
# and what it re-exports (RichPushExtension, RichPushCore), with the catalog
# Sources/RichPushNotificationService/RichPushNotificationService.docc, into .build/docs
# (a static website: open .build/docs/index.html through any web server, e.g.
# `python3 -m http.server -d .build/docs`, then /documentation/richpushnotificationservice).
#
# Uses the toolchain's own tools, no package plugin: `swift build`, `swift symbolgraph-extract`
# (the public symbols of the three modules in one symbol graph) and `docc convert`.
# Fails (exit 1) on any DocC warning (a broken symbol link ``Name`` or <doc:Article>, a
# documented parameter the function does not have, …) and on any public symbol declared in
# Sources/ without a doc comment.
#
# Usage: bash scripts/docs.sh [--output DIR]   (default .build/docs)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=.build/docs
if [ "${1:-}" = "--output" ] && [ -n "${2:-}" ]; then OUT=$2; fi

MODULE=RichPushNotificationService
REEXPORTED=RichPushExtension,RichPushCore
CATALOG=Sources/$MODULE/$MODULE.docc
SWIFT=$(readlink -f "$(command -v swift)")
DOCC=${DOCC:-$(dirname "$SWIFT")/docc}
[ -x "$DOCC" ] || DOCC=$(command -v docc) || { echo "docs.sh: no docc beside $SWIFT nor on PATH" >&2; exit 1; }

# The same flags as scripts/test.sh's build, so after it this builds nothing new.
swift build --target "$MODULE" -Xswiftc -warnings-as-errors
BIN=$(swift build --show-bin-path)
TRIPLE=$(basename "$(dirname "$BIN")")
GRAPHS=$(mktemp -d)
trap 'rm -rf "$GRAPHS"' EXIT
# RichPushExtension imports the C shims of libcurl and libcrypto on Linux: their module maps.
swift symbolgraph-extract -module-name "$MODULE" -target "$TRIPLE" -I "$BIN/Modules" \
    -Xcc -fmodule-map-file="$BIN/CCurl.build/module.modulemap" -Xcc -fmodule-map-file=Sources/COpenSSL/module.modulemap \
    -minimum-access-level public -experimental-allowed-reexported-modules="$REEXPORTED" \
    -output-dir "$GRAPHS"

# Every public symbol written in Sources/ has a doc comment (members the compiler synthesizes,
# such as hash(into:), have no source location and are not counted).
python3 - "$GRAPHS" "$PWD" <<'EOF'
import glob, json, sys
graphs, root = sys.argv[1], sys.argv[2]
missing, total = [], 0
for path in glob.glob(graphs + "/*.symbols.json"):
    for s in json.load(open(path, encoding="utf-8"))["symbols"]:
        uri = s.get("location", {}).get("uri", "")
        if "/Sources/" not in uri:
            continue
        total += 1
        if not s.get("docComment", {}).get("lines"):
            line = s["location"]["position"]["line"] + 1
            missing.append("%s:%d: public %s %s has no doc comment" % (
                uri.replace("file://", "").replace(root + "/", ""), line, s["kind"]["displayName"].lower(), ".".join(s["pathComponents"])))
for m in sorted(missing):
    print(m, file=sys.stderr)
print("docs.sh: %d public symbols, %d without a doc comment" % (total, len(missing)))
sys.exit(1 if missing else 0)
EOF

rm -rf "$OUT"
mkdir -p "$(dirname "$OUT")"
"$DOCC" convert "$CATALOG" --additional-symbol-graph-dir "$GRAPHS" --output-path "$OUT" \
    --fallback-display-name "$MODULE" --fallback-bundle-identifier com.richpush.$MODULE \
    --transform-for-static-hosting --warnings-as-errors
echo "docs.sh: reference documentation in $OUT (documentation/$(echo "$MODULE" | tr '[:upper:]' '[:lower:]'))"
