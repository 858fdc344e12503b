#!/usr/bin/env bash
# Builds .build/lumen_VERSION_ARCH.deb: lumend and lumenctl with the Swift runtime linked in (so the package
# needs only Debian's own libraries), installed with PREFIX=/usr, with the maintainer scripts in packaging/deb,
# then checked with lintian (errors fail).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
version=$(sed -n 's/.*static let string = "\(.*\)".*/\1/p' Sources/LumenProtocol/Wire/LumenVersion.swift)
arch=$(dpkg --print-architecture)
stage=.build/deb/lumen_${version}_${arch}
deb=.build/lumen_${version}_${arch}.deb
rm -rf "$stage" && mkdir -p "$stage/DEBIAN"
make --no-print-directory install DESTDIR="$here/$stage" PREFIX=/usr CONFIG=release \
  SWIFT_BUILD_FLAGS="--static-swift-stdlib --build-path .build/static" BINARIES=.build/static/release >/dev/null
# One binary, lumend, which lumenctl links to (see make install).
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/lumend"
doc="$stage/usr/share/doc/lumen"
cat > "$doc/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: lumen
Source: https://example.invalid/lumen

Files: *
Copyright: 2026 The Lumen authors
License: all-rights-reserved
 No licence to copy, modify or distribute is granted beyond what the authors grant in writing.
COPYRIGHT
{
  echo "lumen ($version) unstable; urgency=medium"
  echo
  echo "  * Package built from the Lumen source tree."
  echo
  echo " -- Lumen <lumen@example.invalid>  $(date -R -d @"${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")"
} | gzip -9n > "$doc/changelog.gz"
chmod 0644 "$doc/copyright" "$doc/changelog.gz"
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat > "$stage/DEBIAN/control" <<CONTROL
Package: lumen
Version: $version
Architecture: $arch
Maintainer: Lumen <lumen@example.invalid>
Installed-Size: $size
Depends: adduser, libc6 (>= 2.36), libedit2, libgcc-s1, libgnutls30 (>= 3.7.0), libstdc++6, libsystemd0, python3:any
Section: misc
Priority: optional
Homepage: https://example.invalid/lumen
Description: smart-light simulator daemon and its command-line client
 lumend simulates a home of smart lights that behave like hardware (latency,
 faults, transitions, discovery) and serves it over a Unix socket with
 JSON-RPC 2.0, for building and testing home-automation software without real
 bulbs. lumenctl looks at and drives it. State survives restarts, crashes and
 power loss. Ships systemd units for the system and for users.
CONTROL
# The maintainer scripts, written by hand in debhelper's form (packaging/deb).
install -m 0755 packaging/deb/postinst packaging/deb/prerm packaging/deb/postrm "$stage/DEBIAN/"
(cd "$stage" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "built $deb"
if command -v lintian >/dev/null; then
  lintian --fail-on error --suppress-tags no-manual-page "$deb"
  echo "ok   lintian: no errors"
else
  echo "SKIPPED: lintian is not installed (make deps installs it)"
fi
