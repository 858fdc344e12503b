#!/usr/bin/env bash
# Installs Lumen into a temporary prefix (the debug build, as make test has it) and checks the units as they
# are installed there, their paths filled in for that prefix: `systemd-analyze verify` must pass (it fails
# when ExecStart= names a binary that does not exist), and each system service's exposure rating from
# `systemd-analyze security --offline=yes` must be 2.0 or below; the system's sockets belong to group lumen,
# which the installed sysusers.d file creates. Then `make uninstall` must leave no file.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/usr"
# The debug build make test has just made, as it is: these checks are of the units and the files, not of how the
# binary is linked (make deb checks that), and a static build of its own would double make test's build time.
debug_build=(CONFIG=debug SWIFT_BUILD_FLAGS= BINARIES="$here/.build/debug")
make --no-print-directory -C "$here" install PREFIX="$prefix" "${debug_build[@]}" >"$work/install.log" 2>&1 \
  || { echo "FAIL make install"; cat "$work/install.log"; exit 1; }
units="$prefix/lib/systemd/system"
user_units="$prefix/lib/systemd/user"
# Template units are verified through an instance, as systemd would load them; its fixture is a shipped one.
cp "$units/lumend@.service" "$work/lumend@demo.service"
cp "$units/lumend@.socket" "$work/lumend@demo.socket"
sed -i "s|/etc/lumen/homes/%i.json|$prefix/share/lumen/fixtures/demo-home.json|" "$work/lumend@demo.service"
cp "$units/lumend.service" "$units/lumend.socket" "$units/lumend-http.socket" "$units/lumend-https.socket" "$work/"
# verify looks up each Documentation=man: page, so the pages installed with the units must be found.
export MANPATH="$prefix/share/man"
mkdir -p "$work/run" && chmod 700 "$work/run"
failed=0
check() {
  local label=$1; shift
  if ! out=$("$@" 2>&1); then
    echo "FAIL verify $label"; echo "$out"; failed=1
  elif [ -n "$out" ]; then
    echo "FAIL verify $label printed warnings:"; echo "$out"; failed=1
  else
    echo "ok   verify $label"
  fi
}
for unit in lumend.service lumend.socket lumend-http.socket lumend-https.socket lumend@demo.service lumend@demo.socket; do
  check "$unit" bash -c "cd '$work' && systemd-analyze verify '$work/$unit'"
done
for unit in lumend.service lumend.socket; do
  check "user $unit" bash -c "cd '$user_units' && XDG_RUNTIME_DIR='$work/run' systemd-analyze --user verify '$user_units/$unit'"
done
grep -q "ExecStart=$prefix/bin/lumend" "$units/lumend.service" || { echo "FAIL ExecStart= not filled in"; failed=1; }
for unit in lumend.service lumend@demo.service; do
  line=$(systemd-analyze security --offline=yes "$work/$unit" 2>/dev/null | grep 'Overall exposure level' || true)
  score=$(sed -E 's/.*: ([0-9]+\.[0-9]+).*/\1/' <<<"$line")
  if [ -z "$score" ]; then
    echo "FAIL security $unit: no rating"; failed=1
  elif awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }'; then
    echo "ok   security $unit: exposure $score (limit 2.0)"
  else
    echo "FAIL security $unit: exposure $score is above 2.0"; failed=1
  fi
done
# The documented drop-in that lets the system's lumend serve LIFX bulbs on the LAN (docs/lifx.md) must load
# cleanly onto the installed service, and leave it within the same exposure limit.
lifx_dropin="$prefix/share/doc/lumen/examples/lumend-lifx.conf"
mkdir -p "$work/lifx/lumend.service.d"
cp "$work/lumend.service" "$work/lumend.socket" "$work/lifx/"
if [ -f "$lifx_dropin" ]; then
  cp "$lifx_dropin" "$work/lifx/lumend.service.d/lifx.conf"
  check "lumend.service with the LIFX drop-in" bash -c "cd '$work/lifx' && systemd-analyze verify '$work/lifx/lumend.service'"
  line=$(systemd-analyze security --offline=yes "$work/lifx/lumend.service" 2>/dev/null | grep 'Overall exposure level' || true)
  score=$(sed -E 's/.*: ([0-9]+\.[0-9]+).*/\1/' <<<"$line")
  if [ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }'; then
    echo "ok   security lumend.service with the LIFX drop-in: exposure $score (limit 2.0)"
  else
    echo "FAIL security lumend.service with the LIFX drop-in: exposure '$score' (limit 2.0)"; failed=1
  fi
else
  echo "FAIL no LIFX drop-in installed at $lifx_dropin"; failed=1
fi
# The system's sockets admit group lumen, which the installed sysusers.d file creates (as systemd-sysusers
# does at boot or from the package's postinst): here in an empty root, where it must make just that group.
sysusers="$prefix/lib/sysusers.d/lumen.conf"
if [ ! -f "$sysusers" ]; then
  echo "FAIL no sysusers.d file installed at $sysusers"; failed=1
else
  mkdir -p "$work/sysroot/etc"
  if out=$(systemd-sysusers --root="$work/sysroot" "$sysusers" 2>&1) \
    && grep -q '^lumen:x:[0-9]*:$' "$work/sysroot/etc/group"; then
    echo "ok   the installed sysusers.d file creates group lumen"
  else
    echo "FAIL systemd-sysusers $sysusers made no group lumen:"; echo "$out"; cat "$work/sysroot/etc/group" 2>/dev/null
    failed=1
  fi
fi
for unit in lumend.socket lumend@.socket; do
  if grep -qx 'SocketGroup=lumen' "$units/$unit" && grep -qx 'SocketMode=0660' "$units/$unit"; then
    echo "ok   $unit gives its socket to group lumen, mode 0660"
  else
    echo "FAIL $unit does not give its socket to group lumen with SocketMode=0660"; failed=1
  fi
done
# lumenctl is a link to lumend, one binary that runs as the one it is called by.
if [ "$(readlink "$prefix/bin/lumenctl")" = lumend ] \
  && "$prefix/bin/lumenctl" --help | grep -q '^Usage: lumenctl' && "$prefix/bin/lumend" --help | grep -q '^Usage: lumend'
then
  echo "ok   lumenctl is a link to lumend, and each runs as itself"
else
  echo "FAIL lumenctl is not a link to lumend that runs as lumenctl"; failed=1
fi
# The installed pages and a printed fixture point at the installed docs and schema, not the source tree.
page() { zcat "$prefix/share/man/$1.gz" | sed 's/\\&//g'; }  # roff's zero-width \& after each dot, gone
if grep -q "$prefix/share/doc/lumen/fixtures.md" <(page man5/lumen-fixture.5) \
  && grep -q "$prefix/share/lumen/fixtures/lumen-fixture.schema.json" <(page man5/lumen-fixture.5) \
  && grep -q "$prefix/share/doc/lumen/protocol.md" <(page man7/lumen-protocol.7) \
  && "$prefix/bin/lumend" --print-fixture demo-home | grep -q "\"\$schema\": \"$prefix/share/lumen/fixtures/lumen-fixture.schema.json\""
then
  echo "ok   the installed pages and --print-fixture point at the installed docs and schema"
else
  echo "FAIL the installed pages or --print-fixture point into the source tree"; failed=1
fi
make --no-print-directory -C "$here" uninstall PREFIX="$prefix" >"$work/uninstall.log" 2>&1 \
  || { echo "FAIL make uninstall"; cat "$work/uninstall.log"; exit 1; }
left=$(find "$prefix" -type f)
if [ -n "$left" ]; then
  echo "FAIL uninstall left files behind:"; echo "$left"; failed=1
else
  echo "ok   uninstall removed every file it installed"
fi
# Installed as a user would (PREFIX=/usr/local, staged): the Python client lands where Debian's Python looks.
stage="$work/stage"
make --no-print-directory -C "$here" install PREFIX=/usr/local DESTDIR="$stage" "${debug_build[@]}" >"$work/local.log" 2>&1 \
  || { echo "FAIL make install PREFIX=/usr/local"; cat "$work/local.log"; exit 1; }
local_dir=$(/usr/bin/python3 -c 'import sys; print(next(p for p in sys.path if p.startswith("/usr/local/lib/python3")))')
if [ -f "$stage$local_dir/lumen/__init__.py" ]; then
  echo "ok   PREFIX=/usr/local puts the Python client in $local_dir, which Python searches"
else
  echo "FAIL PREFIX=/usr/local: no lumen/__init__.py in $local_dir:"; find "$stage" -name __init__.py; failed=1
fi
exit $failed
