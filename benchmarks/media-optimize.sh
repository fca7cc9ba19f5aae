#!/usr/bin/env bash
# benchmarks/media-optimize.sh — RichPush's media optimiser against vipsthumbnail and ImageMagick.
#
# Per input kind: wall time and peak RSS of
#   richpush   `richpush media optimize IN --output OUT --json` (release build, one process each;
#              "step ms" is the optimise step measured in-process, without process start-up)
#   vips       `vipsthumbnail IN -s 2048x2048 -o OUT[Q=85,strip]` (same libvips, new process each)
#   magick     `convert IN -resize 2048x2048> -quality 85 -strip OUT` (ImageMagick 6)
# and the output bytes (RichPush's must be ≤ 307200, the 300 KB budget of article 004).
# Goal (issue 19): RichPush ≤ vipsthumbnail's time, flat memory from 1 MP to 50 MP, every
# output within the budget. Inputs are made here with libvips (`vips`), once.
#
# Then (issue 28) conversions per second through the media worker pool (`MediaWorkerPool`: each
# conversion in a `richpush __media-worker` process, 1 and 2 workers) against `MediaOptimizer`
# in one process, one at a time (what `richpush serve` did before the workers), on the same
# files, for BENCH_SECONDS (default 10) each, in ROUNDS (default 3) rounds alternating the modes
# (the machine's load falls on each alike; the median per mode is printed):
# benchmarks/MediaWorkerBench (richpush-media-bench).
#
# Usage: bash benchmarks/media-optimize.sh            (builds the release binaries)
#        RICHPUSH=.build/debug/richpush bash benchmarks/media-optimize.sh   (a binary already built;
#        the work is libvips' C code either way, the Swift around it is a few calls; the bench
#        program is then taken from the same folder)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${RICHPUSH:-}" ]; then
  swift build -c release --product richpush >/dev/null
  swift build -c release --product richpush-media-bench >/dev/null
  RICHPUSH="$(swift build -c release --show-bin-path)/richpush"
fi
BENCH="$(dirname "$RICHPUSH")/richpush-media-bench"
for tool in vips vipsthumbnail convert /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "media-optimize: $tool is missing (bash scripts/install-deps.sh)" >&2; exit 1; }
done
WORK="$(mktemp -d /tmp/richpush-media-bench.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
IN="$WORK/in"; OUT="$WORK/out"; mkdir -p "$IN" "$OUT"

# Photographic inputs: a smooth gradient with noise (compresses like a photo, not like a flat fill).
photo() {  # NAME WIDTH HEIGHT
  vips gaussnoise "$WORK/n.v" "$2" "$3" --sigma 18 --mean 120
  vips xyz "$WORK/xy.v" "$2" "$3"
  vips extract_band "$WORK/xy.v" "$WORK/x.v" 0
  vips linear "$WORK/x.v" "$WORK/g.v" "$(awk "BEGIN{print 100/$2}")" 60
  vips add "$WORK/n.v" "$WORK/g.v" "$WORK/s.v"
  vips bandjoin "$WORK/s.v $WORK/n.v $WORK/g.v" "$WORK/c.v"
  vips cast "$WORK/c.v" "$WORK/$1.v" uchar
  rm -f "$WORK"/{n,xy,x,g,s,c}.v
}
photo p1 1200 834          # 1 MP
photo p12 4300 2900        # 12.5 MP
photo p50 8660 5774        # 50 MP
vips jpegsave "$WORK/p1.v" "$IN/1mp.jpg" --Q 92
vips jpegsave "$WORK/p12.v" "$IN/12mp.jpg" --Q 95
vips jpegsave "$WORK/p50.v" "$IN/50mp.jpg" --Q 90
vips webpsave "$WORK/p12.v" "$IN/12mp.webp" --Q 90
vips heifsave "$WORK/p1.v" "$IN/1mp.heic" --Q 80
vips heifsave "$WORK/p1.v" "$IN/1mp.avif" --Q 60 --compression av1
vips tiffsave "$WORK/p12.v" "$IN/12mp.tiff"
vips pngsave "$WORK/p12.v" "$IN/12mp.png"
rm -f "$WORK"/*.v

measure() {  # prints "seconds peak_kib" of a command
  /usr/bin/time -f "%e %M" -o "$WORK/time" "$@" >"$WORK/stdout" 2>/dev/null || true
  cat "$WORK/time" | tail -1
}

printf "%-11s %9s | %-36s | %-30s | %-30s\n" "input" "bytes" "richpush s / peak MiB / out bytes / step ms" "vipsthumbnail s / MiB / bytes" "convert s / MiB / bytes"
for f in 1mp.jpg 12mp.jpg 50mp.jpg 12mp.webp 1mp.heic 1mp.avif 12mp.tiff 12mp.png; do
  bytes=$(stat -c %s "$IN/$f")
  read -r rs rk < <(measure "$RICHPUSH" media optimize "$IN/$f" --output "$OUT/r-$f.jpg" --json)
  step=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("elapsed_ms"))' "$WORK/stdout" 2>/dev/null || echo "-")
  rb=$(stat -c %s "$OUT/r-$f.jpg" 2>/dev/null || echo 0)
  read -r vs vk < <(measure vipsthumbnail "$IN/$f" -s 2048x2048 -o "$OUT/v-$f.jpg[Q=85,strip]")
  read -r ms mk < <(measure convert "$IN/$f" -resize '2048x2048>' -quality 85 -strip "$OUT/m-$f.jpg")
  vb=$(stat -c %s "$OUT/v-$f.jpg" 2>/dev/null || echo 0)
  mb=$(stat -c %s "$OUT/m-$f.jpg" 2>/dev/null || echo 0)
  ratio=$(awk "BEGIN{ if ($vs > 0) printf \"%.2f\", $rs/$vs; else print \"-\" }")
  printf "%-11s %9d | %5.2f s %6.1f MiB %7d %6s | %5.2f s %6.1f MiB %7d | %5.2f s %6.1f MiB %7d | time ratio %s\n" \
    "$f" "$bytes" "$rs" "$(awk "BEGIN{print $rk/1024}")" "$rb" "$step" \
    "$vs" "$(awk "BEGIN{print $vk/1024}")" "$vb" "$ms" "$(awk "BEGIN{print $mk/1024}")" "$mb" "$ratio"
  if [ "$rb" -gt 307200 ]; then echo "media-optimize: $f: RichPush's output is over the 300 KB budget" >&2; exit 1; fi
done

echo
echo "Conversions per second: worker pool against in process (BENCH_SECONDS=${BENCH_SECONDS:-10} each, ROUNDS=${ROUNDS:-3}; load average $(cut -d' ' -f1-3 /proc/loadavg))"
if [ -x "$BENCH" ]; then
  "$BENCH" "$RICHPUSH" "${BENCH_SECONDS:-10}" "$IN/1mp.jpg" "$IN/12mp.jpg" "$IN/12mp.webp" "$IN/1mp.heic"
else
  echo "media-optimize: $BENCH is missing (swift build --product richpush-media-bench)" >&2
  exit 1
fi
