#!/usr/bin/env bash
# Checks the units in systemd/: `systemd-analyze verify` must pass, and each service's exposure rating from
# `systemd-analyze security --offline=yes` must be 2.0 or below. verify fails when ExecStart= names a binary
# that does not exist, so the units are checked from a copy that points at the binary just built.
set -euo pipefail
binary=$(realpath "${1:?usage: check-units.sh PATH-TO-LUMEND}")
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here"/systemd/*.service "$here"/systemd/*.socket "$work"/
sed -i "s|/usr/local/bin/lumend|$binary|" "$work"/*.service
# Template units are verified through an instance, as systemd would load them.
cp "$work/lumend@.service" "$work/lumend@demo.service"
cp "$work/lumend@.socket" "$work/lumend@demo.socket"
sed -i "s|/etc/lumen/homes/%i.json|$here/fixtures/demo-home.json|" "$work/lumend@demo.service"
failed=0
for unit in lumend.service lumend.socket lumend@demo.service lumend@demo.socket; do
  if ! out=$(cd "$work" && systemd-analyze verify "$work/$unit" 2>&1); then
    echo "FAIL verify $unit"; echo "$out"; failed=1
  elif [ -n "$out" ]; then
    echo "FAIL verify $unit printed warnings:"; echo "$out"; failed=1
  else
    echo "ok   verify $unit"
  fi
done
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
exit $failed
