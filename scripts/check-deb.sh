#!/usr/bin/env bash
# Installs the package built by make-deb.sh as a user would and uses it: lumend --check on each shipped
# fixture, man lumenctl, and a ten-line pytest file that drives a light through the packaged plugin and lumend.
#
# The install is real where it can be: a clean Debian 12 is made with mmdebstrap (from the archive this
# machine's apt uses), and `apt-get install ./lumen_….deb` runs in it, fetching the package's dependencies.
# Where no clean system can be made (no mmdebstrap, no archive), it says SKIPPED and why, and installs into a
# temporary root with dpkg instead (its own database; the dependencies are this machine's).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
deb=$(ls -t "$here"/.build/lumen_*.deb | head -1)
name=$(basename "$deb")
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
failed=0

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

# What a user does once the package is installed: `$1` runs a command on the installed system, whose files
# are under `$2` here; `$3` is the part of that to strip to name a file as `$1` sees it; `$4` is the directory
# holding the pytest file, as `$1` sees it; the rest are arguments for pytest.
use_installed() {
  local run=$1 prefix=$2 strip=$3 workdir=$4
  shift 4
  for fixture in "$prefix"/usr/share/lumen/fixtures/*.json; do
    [ "$(basename "$fixture")" = lumen-fixture.schema.json ] && continue
    if out=$($run lumend --check "${fixture#"$strip"}" 2>&1); then
      echo "ok   lumend --check $(basename "$fixture"): ${out##*: }"
    else
      echo "FAIL lumend --check $(basename "$fixture")"; echo "$out"; failed=1
    fi
  done
  if $run man lumenctl 2>/dev/null | grep -q "lumenctl - look at and drive a running lumend"; then
    echo "ok   man lumenctl"
  else
    echo "FAIL man lumenctl"; failed=1
  fi
  # The plugin is found as the package installs it (its entry point), with no -p.
  if out=$($run sh -c 'cd "$0" && python3 -m pytest -q -p no:cacheprovider "$@" test_lamp.py' "$workdir" "$@" 2>&1)
  then
    echo "ok   a ten-line pytest file drives a light through the packaged plugin and lumend"
  else
    echo "FAIL the pytest file against the packaged lumend"; echo "$out"; failed=1
  fi
}

# A clean Debian 12, from the archive this machine's apt uses.
make_clean_system() {
  command -v mmdebstrap >/dev/null || { echo "mmdebstrap is not installed"; return 1; }
  local sources=/etc/apt/sources.list.d/debian.sources
  [ -r "$sources" ] || sources=/dev/null
  # Its package lists are kept, as on a system that has run `apt-get update`.
  mmdebstrap --quiet --variant=apt --skip=cleanup/apt/lists bookworm "$root/system" - <"$sources" 2>&1 | tail -5
  [ -x "$root/system/usr/bin/apt-get" ]
}

# Runs a command in the clean system, with /proc of a process namespace of its own.
in_system() {
  unshare --mount --pid --fork --kill-child --mount-proc="$root/system/proc" chroot "$root/system" "$@"
}

if reason=$(make_clean_system); then
  mkdir -p "$root/system/tmp/lumen-check"
  cp "$deb" "$root/test_lamp.py" "$root/system/tmp/lumen-check/"
  # A user installs the package, a manual page reader, and pytest for their tests.
  if out=$(in_system env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      "/tmp/lumen-check/$name" man-db python3-pytest 2>&1); then
    echo "ok   apt-get install ./$name on a clean Debian 12 ($(grep -c '^Setting up' <<<"$out") packages set up)"
    use_installed in_system "$root/system" "$root/system" /tmp/lumen-check
  else
    echo "FAIL apt-get install ./$name on a clean Debian 12"; echo "$out" | tail -20; failed=1
  fi
  exit $failed
fi

echo "SKIPPED: no clean Debian 12 could be made (${reason:-mmdebstrap failed}); installing with dpkg into a temporary root instead"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/tmp/lumen-check"
touch "$root/var/lib/dpkg/status"
if ! out=$(dpkg --root="$root" --force-depends --force-script-chrootless --log=/dev/null -i "$deb" 2>&1); then
  echo "FAIL dpkg -i $name"; echo "$out"; exit 1
fi
echo "ok   dpkg -i $name into a temporary root"
# What apt would do with it on this machine's Debian archive: its declared dependencies must resolve.
if out=$(apt-get install -s "$deb" 2>&1) && grep -q '^Inst lumen ' <<<"$out"; then
  echo "ok   apt-get install -s $name: its dependencies resolve"
else
  echo "FAIL apt-get install -s $name"; echo "$out"; failed=1
fi
cp "$root/test_lamp.py" "$root/tmp/lumen-check/"
# Runs a command with the temporary root's programs, manual pages and Python packages first.
in_root() {
  PATH="$root/usr/bin:/usr/bin:/bin:$PATH" MANPATH="$root/usr/share/man" PYTHONPATH="$root/usr/lib/python3/dist-packages" "$@"
}
use_installed in_root "$root" "" "$root/tmp/lumen-check" --lumend "$root/usr/bin/lumend"
exit $failed
