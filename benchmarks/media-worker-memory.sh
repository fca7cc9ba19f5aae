#!/usr/bin/env bash
# benchmarks/media-worker-memory.sh — the peak memory of one media conversion at the optimiser's
# bounds (issue 28): for each format, the largest image the default bounds let through
# (`maximumInputPixels` 100 MP; for a decoder that holds the whole image, `maximumDecodeBytes`
# 400 MB divided by its bytes a pixel, `Sources/RichPushMedia/Optimize/DecodeMemory.swift`), made
# here with libvips (photo-like: a gradient with noise) and converted by `richpush media
# optimize` (which runs the conversion in a `richpush __media-worker` process). Printed per file:
# the pixel size, the estimate, the peak RSS of the command and its worker (`/usr/bin/time`'s
# maximum resident set size: the larger of the two; the worker is the one that decodes) and the
# result; then the largest. The documented figure (docs/limits.md, "Media") must be above it.
#
# Usage: bash benchmarks/media-worker-memory.sh      (builds the release binary)
#        RICHPUSH=.build/debug/richpush bash benchmarks/media-worker-memory.sh
#        ONLY='gif|heic' bash benchmarks/media-worker-memory.sh   (the groups whose name matches:
#        streamed, progressive, interlaced, webp, gif, heif, bmp)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${RICHPUSH:-}" ]; then
  swift build -c release --product richpush >/dev/null
  RICHPUSH="$(swift build -c release --show-bin-path)/richpush"
fi
for tool in vips convert /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "media-worker-memory: $tool is missing (bash scripts/install-deps.sh)" >&2; exit 1; }
done
WORK="$(mktemp -d "${TMPDIR:-/tmp}/richpush-worker-memory.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

photo() {  # NAME SIDE BANDS: a SIDE×SIDE photo-like image of BANDS uchar bands (3 or 4)
  vips gaussnoise "$WORK/_n.v" "$2" "$2" --sigma 18 --mean 120
  vips xyz "$WORK/_xy.v" "$2" "$2"
  vips extract_band "$WORK/_xy.v" "$WORK/_x.v" 0
  vips linear "$WORK/_x.v" "$WORK/_g.v" "$(awk "BEGIN{print 100/$2}")" 60
  vips add "$WORK/_n.v" "$WORK/_g.v" "$WORK/_s.v"
  if [ "$3" = 4 ]; then
    vips bandjoin "$WORK/_s.v $WORK/_n.v $WORK/_g.v $WORK/_n.v" "$WORK/_c.v"
  else
    vips bandjoin "$WORK/_s.v $WORK/_n.v $WORK/_g.v" "$WORK/_c.v"
  fi
  vips cast "$WORK/_c.v" "$WORK/$1.v" uchar
  rm -f "$WORK"/{_n,_xy,_x,_g,_s,_c}.v
}
want() { [[ "$1" =~ ${ONLY:-.} ]]; }

# side = floor(sqrt(min(100 MP, 400 MB / bytes a pixel))), one pixel under each bound.
printf "%-26s %11s %11s %9s %9s  %s\n" "file" "pixels" "estimate" "peak MiB" "seconds" "result"
peak_max=0
run() {  # FILE LABEL ESTIMATE_BYTES [extra options]
  local file=$1 label=$2 estimate=$3; shift 3
  /usr/bin/time -f "%e %M" -o "$WORK/time" "$RICHPUSH" media optimize "$file" --output "$WORK/out.jpg" --json "$@" >"$WORK/out.json" 2>/dev/null || true
  read -r seconds kib < <(tail -1 "$WORK/time")
  result=$(python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); print(o.get("action") or o.get("reason"))' "$WORK/out.json" 2>/dev/null || echo "?")
  size=$(vipsheader -f width "$file" 2>/dev/null || echo 0)
  printf "%-26s %11d %8d MB %9.1f %9.2f  %s\n" "$label" "$((size * size))" "$((estimate / 1000000))" "$(awk "BEGIN{print $kib/1024}")" "$seconds" "$result"
  if [ "$kib" -gt "$peak_max" ]; then peak_max=$kib; fi
  rm -f "$file"
}

if want streamed; then
photo big 9999 3
vips jpegsave "$WORK/big.v" "$WORK/baseline.jpg" --Q 90
run "$WORK/baseline.jpg" "JPEG baseline 9999²" 0
vips pngsave "$WORK/big.v" "$WORK/plain.png" --compression 1
run "$WORK/plain.png" "PNG 9999²" 0
vips tiffsave "$WORK/big.v" "$WORK/strip.tiff"
run "$WORK/strip.tiff" "TIFF 9999² (3 B/px)" $((9999 * 9999 * 3))
rm -f "$WORK/big.v"
fi

if want progressive; then
photo p 7071 3   # 8 B/px: 50 MP
vips jpegsave "$WORK/p.v" "$WORK/progressive.jpg" --interlace --Q 90
run "$WORK/progressive.jpg" "JPEG progressive 7071²" $((7071 * 7071 * 8))
vips jxlsave "$WORK/p.v" "$WORK/image.jxl"
run "$WORK/image.jxl" "JPEG XL 7071²" $((7071 * 7071 * 8))
rm -f "$WORK/p.v"
fi

if want interlaced; then
photo i 9759 3   # interlaced PNG RGB8: 4.2 B/px
vips copy "$WORK/i.v" "$WORK/interlaced.png[interlace,compression=1]"
run "$WORK/interlaced.png" "PNG interlaced RGB 9759²" $((9759 * 9759 * 42 / 10))
rm -f "$WORK/i.v"
photo i16 5976 4   # interlaced PNG RGBA16: 11.2 B/px
vips linear "$WORK/i16.v" "$WORK/i16l.v" 256 0
vips cast "$WORK/i16l.v" "$WORK/i16c.v" ushort
vips copy "$WORK/i16c.v" "$WORK/i16r.v" --interpretation rgb16
vips copy "$WORK/i16r.v" "$WORK/interlaced16.png[interlace,compression=1]"
rm -f "$WORK"/i16*.v
run "$WORK/interlaced16.png" "PNG interlaced RGBA16 5976²" $((5976 * 5976 * 112 / 10))
fi

if want webp; then
photo w 7559 3   # WebP: 7 B/px
vips webpsave "$WORK/w.v" "$WORK/lossless.webp" --lossless --effort 0
run "$WORK/lossless.webp" "WebP lossless 7559²" $((7559 * 7559 * 7))
rm -f "$WORK/w.v"
fi

if want gif; then
photo g 6666 3   # GIF: 9 B/px
vips gifsave "$WORK/g.v" "$WORK/image.gif"
run "$WORK/image.gif" "GIF 6666²" $((6666 * 6666 * 9))
rm -f "$WORK/g.v"
fi

if want heif; then
photo h 6324 3   # HEIC, AVIF: 10 B/px
vips heifsave "$WORK/h.v" "$WORK/image.heic" --compression hevc --Q 80
run "$WORK/image.heic" "HEIC 6324²" $((6324 * 6324 * 10))
vips heifsave "$WORK/h.v" "$WORK/image.avif" --compression av1 --Q 60 --effort 0
run "$WORK/image.avif" "AVIF 6324²" $((6324 * 6324 * 10))
rm -f "$WORK/h.v"
fi

if want bmp; then
photo b 5163 3   # BMP through ImageMagick: 15 B/px
vips copy "$WORK/b.v" "$WORK/b.png"
convert "$WORK/b.png" "bmp3:$WORK/image.bmp"
rm -f "$WORK/b.v" "$WORK/b.png"
run "$WORK/image.bmp" "BMP 5163² (ImageMagick)" $((5163 * 5163 * 15)) --allow-imagemagick
fi

echo "largest peak: $(awk "BEGIN{printf \"%.1f\", $peak_max/1024}") MiB ($((peak_max * 1024)) bytes)"
