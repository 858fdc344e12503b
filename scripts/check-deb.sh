#!/usr/bin/env bash
# Installs the package built by make-deb.sh as a user would and uses it: lumend --check on each shipped
# fixture, man lumenctl, a ten-line pytest file that drives a light through the packaged plugin and lumend,
# and the system's lumend through its socket as a member of group lumen; then removes and purges it, which
# must leave nothing of it behind.
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

# What it costs to install: below 30 MB (lumend and lumenctl are one binary; README.md says what it weighs).
size=$(dpkg-deb -f "$deb" Installed-Size)
if [ "$size" -lt 30000 ]; then
  echo "ok   installed size $size kB (limit 30000)"
else
  echo "FAIL installed size $size kB is above 30000"; failed=1
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

# Starts the system's lumend as lumend.socket would have systemd do (a short program in place of systemd,
# which does not run in the clean system): its socket made at the unit's path, with its mode, group and
# directory mode, and handed to lumend as LISTEN_FDS. Arguments: the unit, then lumend's command line.
cat > "$root/activate.py" <<'PYTHON'
import grp, os, socket, sys
unit = dict(line.strip().split("=", 1) for line in open(sys.argv[1]) if "=" in line)
path = unit["ListenStream"].replace("%t", "/run")
os.makedirs(os.path.dirname(path), exist_ok=True)
os.chmod(os.path.dirname(path), int(unit.get("DirectoryMode", "0755"), 8))
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(path)
os.chown(path, 0, grp.getgrnam(unit.get("SocketGroup", "root")).gr_gid)
os.chmod(path, int(unit.get("SocketMode", "0666"), 8))
listener.listen(128)
if listener.fileno() != 3:
    os.dup2(listener.fileno(), 3)
os.set_inheritable(3, True)
os.environ.update(LISTEN_FDS="1", LISTEN_PID=str(os.getpid()))
os.execv(sys.argv[2], sys.argv[2:])
PYTHON

# The system's lumend admits group lumen: the package made the group, a user added to it uses lumend through
# the system's socket, and a user outside it is refused and told how to join. Run in the installed system.
cat > "$root/group_access.sh" <<'SHELL'
set -eu
getent group lumen >/dev/null || { echo "no group lumen"; exit 1; }
grep -qx SocketGroup=lumen /usr/lib/systemd/system/lumend.socket || { echo "lumend.socket names no SocketGroup=lumen"; exit 1; }
useradd --create-home member && usermod -aG lumen member
useradd --create-home outsider
python3 /tmp/lumen-check/activate.py /usr/lib/systemd/system/lumend.socket /usr/bin/lumend &
daemon=$!
for _ in $(seq 100); do [ -S /run/lumend/lumend.sock ] && break; sleep 0.1; done
status=0
if out=$(runuser -u member -- lumenctl --timeout 30 status 2>&1); then
  echo "member: $(echo "$out" | head -1)"
else
  echo "a member of group lumen could not use the system's lumend:"; echo "$out"; status=1
fi
if out=$(runuser -u outsider -- lumenctl --timeout 30 status 2>&1); then
  echo "a user outside group lumen used the system's lumend"; status=1
elif ! echo "$out" | grep -q "sudo usermod -aG lumen"; then
  echo "a user outside group lumen was not told how to join it:"; echo "$out"; status=1
fi
kill -TERM $daemon; wait $daemon || true
rm -rf /run/lumend  # what the stand-in for systemd made; /run is emptied at boot
userdel --remove member 2>/dev/null || true; userdel --remove outsider 2>/dev/null || true
exit $status
SHELL

# Right after the install, run in the installed system: the Python client is byte-compiled, the system's
# socket enabled (as deb-systemd-helper records it where systemd does not run).
cat > "$root/installed.sh" <<'SHELL'
set -eu
status=0
for module in $(dpkg -L lumen | grep '^/usr/lib/python3/dist-packages/lumen/[^/]*\.py$'); do
  name=$(basename "$module" .py)
  ls "$(dirname "$module")/__pycache__/$name".cpython-*.pyc >/dev/null 2>&1 || { echo "no .pyc for $module"; status=1; }
done
[ -L /etc/systemd/system/sockets.target.wants/lumend.socket ] || { echo "lumend.socket is not enabled"; status=1; }
dpkg -L lumen | while read -r path; do [ -d "$path" ] || echo "$path"; done > /tmp/lumen-check/files
exit $status
SHELL

# After `apt-get remove`, then `dpkg --purge`, run in the installed system: nothing of the package is left,
# and after the purge nothing of lumend's either (its state in /var/lib/lumend). $1 is remove or purge.
cat > "$root/removed.sh" <<'SHELL'
set -eu
status=0
while read -r path; do
  if [ -e "$path" ] || [ -L "$path" ]; then echo "left by $1: $path"; status=1; fi
done < /tmp/lumen-check/files
for dir in /usr/lib/python3/dist-packages/lumen /usr/share/lumen /usr/share/doc/lumen; do
  [ ! -e "$dir" ] || { echo "left by $1: $dir"; find "$dir"; status=1; }
done
if [ "$1" = purge ]; then
  dpkg-query -W -f='${Status}\n' lumen 2>/dev/null | grep -q . && { echo "dpkg still knows lumen after purge"; status=1; }
  # man-db's cache of the pages read (its own to clean) and the check's own files aside.
  left=$(find / -xdev \( -path /proc -o -path /tmp/lumen-check -o -path /var/cache/man \) -prune -o -name '*lumen*' -print)
  [ -z "$left" ] || { echo "left by purge:"; echo "$left"; status=1; }
fi
exit $status
SHELL

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
  cp "$deb" "$root"/{test_lamp.py,activate.py,group_access.sh,installed.sh,removed.sh} "$root/system/tmp/lumen-check/"
  # A user installs the package, a manual page reader, and pytest for their tests.
  if out=$(in_system env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      "/tmp/lumen-check/$name" man-db python3-pytest 2>&1); then
    echo "ok   apt-get install ./$name on a clean Debian 12 ($(grep -c '^Setting up' <<<"$out") packages set up)"
    if out=$(in_system sh /tmp/lumen-check/installed.sh 2>&1); then
      echo "ok   the install byte-compiled the Python client and enabled lumend.socket"
    else
      echo "FAIL after the install"; echo "$out"; failed=1
    fi
    use_installed in_system "$root/system" "$root/system" /tmp/lumen-check
    if out=$(in_system sh /tmp/lumen-check/group_access.sh 2>&1); then
      echo "ok   group lumen exists; a user added to it uses the system's lumend, one outside it is told to join"
    else
      echo "FAIL the system's socket and group lumen"; echo "$out"; failed=1
    fi
    # Removed with apt, then purged with dpkg (apt knows no package it has no archive for once it is removed).
    for step in remove purge; do
      case $step in remove) action="apt-get remove -y -q" ;; purge) action="dpkg --purge" ;; esac
      if ! out=$(in_system env DEBIAN_FRONTEND=noninteractive $action lumen 2>&1); then
        echo "FAIL $action lumen"; echo "$out" | tail -20; failed=1
      elif out=$(in_system sh /tmp/lumen-check/removed.sh "$step" 2>&1); then
        echo "ok   $action lumen leaves nothing of it behind"
      else
        echo "FAIL $action lumen"; echo "$out"; failed=1
      fi
    done
  else
    echo "FAIL apt-get install ./$name on a clean Debian 12"; echo "$out" | tail -20; failed=1
  fi
  exit $failed
fi

echo "SKIPPED: no clean Debian 12 could be made (${reason:-mmdebstrap failed}); installing with dpkg into a temporary root instead"
mkdir -p "$root/etc" "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/tmp/lumen-check"
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
# The postinst made group lumen in the temporary root (systemd-sysusers --root), which lumend.socket names;
# no lumend can be started as the system's here.
if grep -q '^lumen:' "$root/etc/group" && grep -qx SocketGroup=lumen "$root/usr/lib/systemd/system/lumend.socket"; then
  echo "ok   the install made group lumen, and lumend.socket names it"
else
  echo "FAIL the install made no group lumen, or lumend.socket does not name it"; failed=1
fi
exit $failed
