#!/usr/bin/env bash
# Reproduces docs/development.md's line-length table: for each limit, how many lines swift format
# adds to and removes from a revision's Swift files with the project's .swift-format at that limit,
# and the share of that revision's lines (as written) within each limit.
#   bash scripts/format-line-lengths.sh [REV] [LIMITS...]
#   (default REV: the parent of the commit that added .swift-format, i.e. the tree as written before
#   the check; default limits: 100 120 140 160 180 200 250 400)
set -euo pipefail
cd "$(dirname "$0")/.."
config=$(pwd)/.swift-format
rev=${1:-$(git log --diff-filter=A --format=%H -1 -- .swift-format)^}
shift || true
limits=("$@")
[ ${#limits[@]} -gt 0 ] || limits=(100 120 140 160 180 200 250 400)
work=$(mktemp -d)
trap 'git worktree remove --force "$work/tree" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add --detach -q "$work/tree" "$rev"
cd "$work/tree"
paths=(Sources Tests Package.swift)
[ -d Examples ] && paths+=(Examples)
mapfile -t files < <(git ls-files -- '*.swift')
echo "revision $(git rev-parse --short HEAD): ${#files[@]} Swift files, $(cat "${files[@]}" | wc -l) lines"
printf '%-7s %-15s %-9s %-9s %s\n' limit files-changed added removed lines-within-limit
for limit in "${limits[@]}"; do
    git checkout -q -- .
    within=$(cat "${files[@]}" | awk -v l="$limit" 'length($0) <= l {n++} END {printf "%.1f %%", 100 * n / NR}')
    python3 -c "import json,sys; c=json.load(open(sys.argv[1])); c['lineLength']=int(sys.argv[2]); json.dump(c, open('.swift-format','w'))" "$config" "$limit"
    swift format format --in-place --recursive --parallel "${paths[@]}" 2>/dev/null || true
    read -r changed added removed < <(git diff --numstat -- '*.swift' | awk '{f++; a+=$1; r+=$2} END {print f+0, a+0, r+0}')
    printf '%-7s %-15s %-9s %-9s %s\n' "$limit" "$changed" "$added" "$removed" "$within"
    rm -f .swift-format
done
git checkout -q -- .
