#!/usr/bin/env bash
# Installs what RichPush needs on a fresh Debian machine with the Swift toolchain.
# Idempotent: installs only what is missing. Each side adds its packages to the lists below.
set -euo pipefail

APT_PACKAGES=(
  libcurl4-openssl-dev   # media transport (extension side, Linux) and HTTP/2 to APNs
  libssl-dev             # AES-GCM, ES256/RS256 JWT signing (OpenSSL)
  python3                # local test servers (media, receipts)
  python3-cryptography   # extension-depth tests: cross-check AES-256-GCM envelopes with Python's cryptography
  curl                   # tests read the receipts log; benchmarks compare against curl -w %{time_total}
  binutils               # linkage test: readelf and nm on the extension-side binary (issue 3)
  gcc                    # linkage test: builds a small server-like shared object as the failing control
  openssl                # provider tests: throwaway P-256 .p8 keys (openssl ecparam | pkcs8)
  nghttp2-client         # benchmarks/apns-throughput.sh, apns-connections.sh: h2load, the HTTP/2 ceiling
  libnghttp2-dev         # benchmarks/mock-apns: the fast C mock APNs (nghttp2 server side) that apns-connections.sh and campaign.sh run against
  h2o                    # benchmarks/apns-throughput.sh: a fast C HTTP/2 server (mruby echoes apns-id)
  libmicrohttpd-dev      # statistics server: HTTP (richpush serve)
  libsqlite3-dev         # statistics server: embedded store (SQLite, WAL)
  chromium               # server tests: a real headless browser attempts CSRF; dashboard screenshots (issue 10)
  libpq-dev              # statistics server: PostgreSQL store (libpq) for several richpush serve (issue 9)
  postgresql             # tests start throwaway clusters (initdb + pg_ctl from /usr/lib/postgresql/<ver>/bin)
  nginx-light            # tests: deploy/nginx/richpush.conf in front of several richpush serve
  haproxy                # tests: deploy/haproxy/haproxy.cfg must drop a client's X-Forwarded-Host (issue 22)
  libvips-dev            # media optimiser (issue 19): libvips via the CVips .systemLibrary shim (pkg-config vips)
  libvips-tools          # media tests and benchmarks/media-optimize.sh: `vips` makes AVIF/TIFF/JPEG XL/12 MB inputs, vipsthumbnail is the reference
  imagemagick            # benchmarks/media-optimize.sh: `convert` is the second reference; `--allow-imagemagick` reads BMP through it
)
PIP_PACKAGES=(
  h2                     # Tests/Support/mock_apns.py: HTTP/2 server side
  hypercorn              # Tests/Support/mock_fcm.py (HTTP/1.1 and h2c on one port), hypercorn_apns.py: HTTP/2 servers we did not write
  trustme                # mock APNs: a throwaway CA and server certificate
  cryptography           # mock APNs: verifies the ES256 JWT; depth tests: cross-check AES-256-GCM (when python3 is not Debian's)
  aioapns                # benchmarks/apns-throughput.sh: the Python APNs client compared against
  openstep-parser        # RichPushDoctorTests: the pbxproj parser's tree is compared with openstep-parser's; benchmarks/doctor.sh
  pbxproj                # benchmarks/doctor.sh: XcodeProject.load timed on the same project as richpush doctor
  openapi-python-client==0.29.1  # GeneratedClientTests: docs/api.md's Python client, generated from openapi.yaml and run as written (pinned: its generated names change between releases)
  schemathesis==4.32.5   # scripts/fuzz-api.sh fuzzes richpush serve against openapi.yaml (pinned: its checks and CLI change between releases); brings PyYAML, which OpenAPIDocumentTests read the document with
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: apt-get install ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ${#PIP_PACKAGES[@]} -gt 0 ]; then
  if ! python3 -m pip --version >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-pip >/dev/null
  fi
  need=()
  for p in "${PIP_PACKAGES[@]}"; do
    if [[ "$p" == *==* ]]; then
      # A pinned package: the installed version must be the pinned one. Read into a variable, not
      # piped into `grep -q`: grep exits at the first match, pip then writes into a closed pipe,
      # and under `set -o pipefail` its broken-pipe failure made the check fail most runs.
      installed=$(python3 -m pip show "${p%%==*}" 2>/dev/null || true)
      [[ $'\n'"$installed"$'\n' == *$'\n'"Version: ${p#*==}"$'\n'* ]] || need+=("$p")
    else
      python3 -m pip show "${p%%[=<>]*}" >/dev/null 2>&1 || need+=("$p")
    fi
  done
  if [ ${#need[@]} -gt 0 ]; then
    echo "install-deps: pip install ${need[*]}" >&2
    python3 -m pip install -q "${need[@]}" 2>/dev/null || python3 -m pip install -q --break-system-packages "${need[@]}"
  fi
fi
