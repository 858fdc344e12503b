#!/usr/bin/env bash
# Installs the package built by make-deb.sh into a temporary root with dpkg (its own database; the
# dependencies are the machine's), then uses it as a user would: lumend --check on each shipped fixture,
# man lumenctl, and a ten-line pytest file that drives a light through the packaged plugin and lumend.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
deb=$(ls -t "$here"/.build/lumen_*.deb | head -1)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
if ! out=$(dpkg --root="$root" --force-depends --force-script-chrootless --log=/dev/null -i "$deb" 2>&1); then
  echo "FAIL dpkg -i $(basename "$deb")"; echo "$out"; exit 1
fi
echo "ok   dpkg -i $(basename "$deb") into a temporary root"
failed=0
# What apt would do with it on this machine's Debian archive: its declared dependencies must resolve.
if out=$(apt-get install -s "$deb" 2>&1) && grep -q '^Inst lumen ' <<<"$out"; then
  echo "ok   apt-get install -s $(basename "$deb"): its dependencies resolve"
else
  echo "FAIL apt-get install -s $(basename "$deb")"; echo "$out"; failed=1
fi
for fixture in "$root"/usr/share/lumen/fixtures/*.json; do
  [ "$(basename "$fixture")" = lumen-fixture.schema.json ] && continue
  if out=$("$root/usr/bin/lumend" --check "$fixture" 2>&1); then
    echo "ok   lumend --check $(basename "$fixture"): ${out##*: }"
  else
    echo "FAIL lumend --check $(basename "$fixture")"; echo "$out"; failed=1
  fi
done
if MANPATH="$root/usr/share/man" man lumenctl 2>/dev/null | grep -q "lumenctl - look at and drive a running lumend"; then
  echo "ok   man lumenctl"
else
  echo "FAIL man lumenctl"; failed=1
fi
cat > "$root/test_lamp.py" <<'PYTEST'
import threading, pytest
@pytest.mark.lumend(seed=7)
def test_a_light_turns_off(lumend):
    spot = lumend.open("light", in_scope=lumend.open("room", configuration="kitchen"), configuration="kitchen.spot-1")
    writer = threading.Thread(target=lumend.set, args=("isOn", False), kwargs={"in_scope": spot})
    writer.start()
    lumend.advance(1_000)
    writer.join(10)
    assert lumend.get("isOn", in_scope=spot) is False
PYTEST
# The plugin is found as the package installs it (its entry point), with no -p.
if out=$(cd "$root" && PYTHONPATH="$root/usr/lib/python3/dist-packages" /usr/bin/python3 -m pytest -q \
    -p no:cacheprovider --lumend "$root/usr/bin/lumend" test_lamp.py 2>&1); then
  echo "ok   a ten-line pytest file drives a light through the packaged plugin and lumend"
else
  echo "FAIL the pytest file against the packaged lumend"; echo "$out"; failed=1
fi
exit $failed
