#!/usr/bin/env bash
# A release of Latchkey to copy, not build: one stripped binary (the Swift runtime linked in, as in the image), the
# example and development configurations, a note of the system libraries it needs, as a tarball and its SHA-256.
# Migrations, pages, mail templates and the common-password list are inside the binary.
#
#   scripts/package.sh [OUT_DIR]        # default: dist/
#
# A team builds it once (about 14 minutes on two cores from nothing, seconds when .build is cached) and copies
# dist/latchkey-VERSION-linux-ARCH.tar.gz to its CI runners: tar xzf, then bin/latchkey serve --testing --port 8090.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-dist}"
version=$(sed -n 's/.*static let version = "\(.*\)"/\1/p' Sources/Latchkey/Latchkey.swift)
arch=$(uname -m)
name="latchkey-$version-linux-$arch"
started=$(date +%s)

# A build folder of its own: a release build never waits for (or blocks) the development builds in .build.
scratch="${LATCHKEY_PACKAGE_BUILD:-.build-release}"
swift build -c release --product latchkey --static-swift-stdlib --scratch-path "$scratch"
bin="$(swift build -c release --scratch-path "$scratch" --show-bin-path)/latchkey"

stage="$out/$name"
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/config"
install -s "$bin" "$stage/bin/latchkey"  # stripped: symbols are most of the size
cp config/latchkey.example.yaml config/latchkey.dev.yaml config/dev-web-client.secret config/dev-admin.token "$stage/config/"
cat > "$stage/README.txt" <<NOTE
Latchkey $version for Linux ($arch).

  bin/latchkey serve --testing --port 8090          # test mode for an app's CI (docs/testing.md)
  bin/latchkey serve --config config/latchkey.dev.yaml   # the development server
  bin/latchkey --help

It links these system libraries (Debian/Ubuntu packages): libssl3 (OpenSSL 3), libsqlite3-0, libargon2-1,
libcrypt1, libstdc++6, zlib1g, and glibc 2.36 or later (Debian 12, Ubuntu 24.04): build on the oldest system it must run on.
NOTE
tar -C "$out" -czf "$out/$name.tar.gz" "$name"
(cd "$out" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
echo "packaged $out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1)) in $(( $(date +%s) - started )) s"
cat "$out/$name.tar.gz.sha256"
