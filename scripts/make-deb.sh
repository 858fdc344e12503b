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
# make install as anyone runs it: its binary is linked as a package's must be, the Swift runtime inside.
make --no-print-directory install DESTDIR="$here/$stage" PREFIX=/usr CONFIG=release >/dev/null
# One binary, lumend, which lumenctl links to (see make install).
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/lumend"
# It must run without the toolchain: no Swift library to load, no RUNPATH but its own directory ($ORIGIN).
toolchain=$(readelf -d "$stage/usr/bin/lumend" | grep -E '\(NEEDED\).*\[lib(swift|Foundation|dispatch|BlocksRuntime)|\(RUNPATH\).*/' || true)
if [ -n "$toolchain" ]; then
  echo "FAIL make install's lumend needs the Swift toolchain:"; echo "$toolchain"; exit 1
fi
echo "ok   make install's lumend needs no Swift toolchain: $(readelf -d "$stage/usr/bin/lumend" | grep -c NEEDED) libraries, all Debian's"
doc="$stage/usr/share/doc/lumen"
cat > "$doc/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: lumen
Source: https://example.invalid/lumen

Files: *
Copyright: 2026 The Lumen authors
License: Apache-2.0

License: Apache-2.0
 Licensed under the Apache License, Version 2.0 (the "License");
 you may not use this file except in compliance with the License.
 You may obtain a copy of the License at
 .
     http://www.apache.org/licenses/LICENSE-2.0
 .
 Unless required by applicable law or agreed to in writing, software
 distributed under the License is distributed on an "AS IS" BASIS,
 WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 See the License for the specific language governing permissions and
 limitations under the License.
 .
 On Debian systems, the complete text of the Apache License, Version 2.0
 can be found in "/usr/share/common-licenses/Apache-2.0".
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
# The README says what the package costs: it must be this package's figure, within 5 %.
said=$(sed -n 's/.*The package installs \([0-9,]*\) KiB.*/\1/p' README.md | tr -d ,)
if [ -z "$said" ] || [ $(( (said > size ? said - size : size - said) * 100 )) -gt $(( size * 5 )) ]; then
  echo "FAIL README.md says the package installs ${said:-nothing} KiB; it installs $size KiB (a $(awk "BEGIN { printf \"%.1f\", $(stat -c %s "$deb") / 1e6 }") MB .deb): write that"
  exit 1
fi
echo "ok   README.md's installed size, $said KiB, is the package's ($size KiB)"
if command -v lintian >/dev/null; then
  lintian --fail-on error --suppress-tags no-manual-page "$deb"
  echo "ok   lintian: no errors"
else
  echo "SKIPPED: lintian is not installed (make deps installs it)"
fi
