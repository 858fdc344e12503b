#!/usr/bin/env python3
"""What a controller sees of each device family, measured on lumend's virtual clock.

For each family (`hue`, `lifx`, `matter`, `generic`; docs/fixtures.md, "Device families") and each of ten
seeds, a fresh lumend (virtual clock, relaxed durability, a temporary state directory) runs a small fixture
of its own, and the script measures:

1. Group command start spread: a room of 4 colour lights of the family (latency preset `hue-zigbee`, or
   `lifx-thread` for LIFX) is sent one `setAll` of brightness with a 1 s transition; the clock moves from
   event to event, and each light's first brightness step is timed from its subscription. Reported: the
   largest gap between two lights' first steps, min–max over the seeds (ms).
2. Fade independence: a colour light (no latency) fades brightness 1 → 100 over 1 s; at 500 ms a
   colour-temperature `set` arrives. Reported: the brightness it ends at (the device's truth).
3. Bridge budget: 30 lights in 3 rooms are each sent one brightness `set` in the same instant, and 2 s later
   each room one `setAll` in the same instant. Reported: how many were accepted (not answered -32012).
4. Unreachable report delay: after `setReachable false`, the clock advances in 1 s steps until the light's
   `isReachable` reads false. Reported: how many seconds that took.
5. Acknowledgement loss: a light with `dropProbability` 1 is sent 200 brightness `set`s, 100 ms apart (within
   LIFX's 20 a second). Reported: the share of commands whose sender timed out (-32011) while the command
   record says `applied`, mean and min–max over the seeds.
6. Discovery: 3 rooms, each with 9 lights waiting (delays 5, 10, …, 45 s); `detectLights` is called from each
   room at once and the clock moves 60 s, event to event. Reported: lights found in total (min–max over the
   seeds) and the range of each light's found time minus its `delayMs` (ms).

It prints a Markdown table, then each difference from the rules docs/fixtures.md documents. Run it as
`python3 scripts/family-fidelity.py` (the lumend binary is `$LUMEND`, else `.build/debug/lumend`).
Standard library only, besides Lumen's Python client in clients/python.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any, Iterator

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPOSITORY, "clients", "python"))

from lumen import Client, ErrorCode, LumenError, Timeout  # noqa: E402

FAMILIES = {"hue": "hue-zigbee", "lifx": "lifx-thread", "matter": "hue-zigbee", "generic": "hue-zigbee"}
SEEDS = range(1, 11)


# A lumend of one's own


def lumend_binary() -> str:
    binary = os.environ.get("LUMEND") or os.path.join(REPOSITORY, ".build", "debug", "lumend")
    for _ in range(60):  # the binary may be being rebuilt: wait for it a little
        if os.access(binary, os.X_OK):
            return binary
        time.sleep(0.5)
    sys.exit(f"no lumend at {binary}: build it, or set $LUMEND")


@contextlib.contextmanager
def lumend(fixture: dict[str, Any], seed: int) -> Iterator[Client]:
    """A lumend on the virtual clock running `fixture` with `seed`, and a client connected to it. As
    lumen.pytest_plugin.start does, without pytest: waits for READY=1, and fails if lumend does not exit
    cleanly."""
    directory = tempfile.mkdtemp(prefix="lumen-fidelity-")
    try:
        fixture_path = os.path.join(directory, "fixture.json")
        with open(fixture_path, "w", encoding="utf-8") as file:
            json.dump({"schema": 1, "id": "fidelity", "name": "Fidelity"} | fixture, file)
        notify_path = os.path.join(directory, "notify.sock")
        socket_path = os.path.join(directory, "lumend.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        listener.bind(notify_path)
        command = [
            lumend_binary(), "--socket", socket_path, "--state-dir", os.path.join(directory, "state"),
            "--clock", "virtual", "--seed", str(seed), "--durability", "relaxed", "--fixture", fixture_path,
            "--exit-with-parent",
        ]
        with open(os.path.join(directory, "stderr.log"), "wb") as stderr:
            process = subprocess.Popen(
                command, env=dict(os.environ, NOTIFY_SOCKET=notify_path), stdout=subprocess.DEVNULL, stderr=stderr
            )
        try:
            deadline = time.monotonic() + 30
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"lumend exited with status {process.returncode}: {stderr_of(directory)}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"lumend did not say READY=1 within 30 s: {stderr_of(directory)}")
                ready, _, _ = select.select([listener], [], [], 0.5)
                if ready and b"READY=1" in listener.recv(4096).split(b"\n"):
                    break
            listener.close()
            client = Client.connect(socket_path)
            try:
                yield client
            finally:
                client.close_connection()
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            try:
                status = process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                status = process.wait()
            if status != 0:
                raise RuntimeError(f"lumend exited with status {status}: {stderr_of(directory)}")
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def stderr_of(directory: str) -> str:
    with open(os.path.join(directory, "stderr.log"), encoding="utf-8", errors="replace") as file:
        return file.read()


def colour_lights(prefix: str, count: int, **settings: Any) -> list[dict[str, Any]]:
    return [{"id": f"{prefix}.l{i}", "name": f"Light {i}", "kind": "color", **settings} for i in range(count)]


def drain(subscription: Any) -> list[Any]:
    """The values a subscription has been sent so far (all of an `advance`'s, once its reply came)."""
    values = []
    while True:
        try:
            values.append(subscription.next(timeout=0))
        except Timeout:
            return values


# The measurements, one lumend each


def group_spread(family: str, seed: int) -> float:
    lights = colour_lights("group", 4)
    fixture = {"rooms": [{"id": "group", "name": "Group", "family": family, "latency": FAMILIES[family],
                          "lights": lights}]}
    with lumend(fixture, seed) as client:
        room = client.open("room", configuration="group")
        subscriptions = []
        for light in lights:
            scope = client.open("light", in_scope=room, configuration=light["id"])
            subscription = client.subscribe("brightness", in_scope=scope)
            drain(subscription)  # its current value
            subscriptions.append(subscription)
        reply = client.call("setAll", {"brightness": 20, "transitionMs": 1000}, in_scope=room, wait=False)
        first: dict[int, float] = {}
        while len(first) < len(lights):
            clock = client.advance_to_next_event()
            if clock["advancedMs"] == 0 or clock["nowMs"] > 10_000:
                raise RuntimeError(f"{family}, seed {seed}: lights {sorted(set(range(4)) - set(first))} never stepped")
            for index, subscription in enumerate(subscriptions):
                if drain(subscription) and index not in first:
                    first[index] = clock["nowMs"]
        client.settle()
        reply.result()
        return max(first.values()) - min(first.values())


def fade_independence(family: str, seed: int) -> float:
    fixture = {"rooms": [{"id": "fade", "name": "Fade", "family": family,
                          "lights": colour_lights("fade", 1, state={"isOn": True, "brightness": 1})}]}
    with lumend(fixture, seed) as client:
        light = client.open("light", in_scope=client.open("room", configuration="fade"), configuration="fade.l0")
        fade = client.set("brightness", 100, in_scope=light, transition_ms=1000, wait=False)
        client.advance(500)
        temperature = client.set("colorTemperature", 250, in_scope=light, wait=False)
        client.settle()
        fade.result()
        temperature.result()
        return client.device("fade.l0")["state"]["brightness"]


def bridge_budget(family: str, seed: int) -> tuple[int, int]:
    rooms = [{"id": f"r{r}", "name": f"Room {r}", "family": family, "latency": FAMILIES[family],
              "lights": colour_lights(f"r{r}", 10)} for r in range(3)]
    with lumend({"rooms": rooms}, seed) as client:
        room_scopes = [client.open("room", configuration=room["id"]) for room in rooms]
        light_scopes = [client.open("light", in_scope=scope, configuration=light["id"])
                        for scope, room in zip(room_scopes, rooms) for light in room["lights"]]
        sets = [client.set("brightness", 50, in_scope=scope, wait=False) for scope in light_scopes]
        client.settle()
        light_commands = accepted(sets)
        client.advance(2000)
        groups = [client.call("setAll", {"brightness": 30}, in_scope=scope, wait=False) for scope in room_scopes]
        client.settle()
        return light_commands, accepted(groups)


def accepted(replies: list[Any]) -> int:
    count = 0
    for reply in replies:
        try:
            reply.result()
            count += 1
        except LumenError as error:
            if error.code != ErrorCode.BUSY:
                raise
    return count


def unreachable_delay(family: str, seed: int) -> int:
    fixture = {"rooms": [{"id": "reach", "name": "Reach", "family": family, "latency": FAMILIES[family],
                          "lights": colour_lights("reach", 1)}]}
    with lumend(fixture, seed) as client:
        light = client.open("light", in_scope=client.open("room", configuration="reach"), configuration="reach.l0")
        client.call("setReachable", {"light": "reach.l0", "reachable": False}, in_scope=client.simulation())
        seconds = 0
        while client.get("isReachable", in_scope=light):
            if seconds >= 300:
                raise RuntimeError(f"{family}, seed {seed}: still reported reachable after {seconds} s")
            client.advance(1000)
            seconds += 1
        return seconds


def acknowledgement_loss(family: str, seed: int, commands: int = 200) -> float:
    fixture = {"rooms": [{"id": "lossy", "name": "Lossy", "family": family, "latency": FAMILIES[family],
                          "lights": colour_lights("lossy", 1, dropProbability=1)}]}
    with lumend(fixture, seed) as client:
        light = client.open("light", in_scope=client.open("room", configuration="lossy"), configuration="lossy.l0")
        replies = []
        for number in range(commands):
            replies.append(client.set("brightness", 10 + number % 80, in_scope=light, wait=False))
            client.advance(100)
        client.settle()
        timed_out = []
        for reply in replies:
            try:
                reply.result()
                timed_out.append(False)
            except LumenError as error:
                if error.code != ErrorCode.TIMED_OUT:
                    raise
                timed_out.append(True)
        record = client.commands(light="lossy.l0")
        if len(record) != commands:
            raise RuntimeError(f"{family}, seed {seed}: the record holds {len(record)} commands, not {commands}")
        both = sum(1 for lost, entry in zip(timed_out, record) if lost and entry["outcome"] == "applied")
        return both / commands


def discovery(family: str, seed: int) -> tuple[int, float, float]:
    delays = [5000 * (i + 1) for i in range(9)]
    rooms = [{"id": f"d{r}", "name": f"Room {r}", "family": family, "latency": FAMILIES[family], "lights": [],
              "undiscovered": [{"delayMs": delay, "light": {"id": f"d{r}.n{i}", "name": f"New {i}", "kind": "color"}}
                               for i, delay in enumerate(delays)]} for r in range(3)]
    delay_of = {entry["light"]["id"]: entry["delayMs"] for room in rooms for entry in room["undiscovered"]}
    with lumend({"rooms": rooms}, seed) as client:
        scopes = [client.open("room", configuration=room["id"]) for room in rooms]
        subscriptions = [client.subscribe("lightIDs", in_scope=scope) for scope in scopes]
        known = {light for subscription in subscriptions for ids in drain(subscription) for light in ids}
        for scope in scopes:
            client.call("detectLights", in_scope=scope)
        offsets = []
        now = 0.0
        while now < 60_000:
            clock = client.advance_to_next_event()
            now = clock["nowMs"]
            if clock["advancedMs"] == 0:
                break
            for subscription in subscriptions:
                for ids in drain(subscription):
                    for light in set(ids) - known:
                        known.add(light)
                        if now <= 60_000:
                            offsets.append(now - delay_of[light])
        return len(offsets), min(offsets), max(offsets)


# The table


def span(values: list[float], unit: str = "", digits: int = 0) -> str:
    low, high = min(values), max(values)
    text = f"{low:.{digits}f}" if low == high else f"{low:.{digits}f}–{high:.{digits}f}"
    return text + unit


def main() -> None:
    started = time.monotonic()
    rows: dict[str, dict[str, str]] = {}
    differences: list[str] = []
    for family in FAMILIES:
        spreads = [group_spread(family, seed) for seed in SEEDS]
        fades = [fade_independence(family, seed) for seed in SEEDS]
        budgets = [bridge_budget(family, seed) for seed in SEEDS]
        delays = [unreachable_delay(family, seed) for seed in SEEDS]
        losses = [acknowledgement_loss(family, seed) for seed in SEEDS]
        scans = [discovery(family, seed) for seed in SEEDS]

        rows.setdefault("group command: spread of first steps (ms)", {})[family] = span(spreads)
        rows.setdefault("brightness after a colour-temperature set at 500 ms of a 1 → 100 fade", {})[family] = \
            span(fades, digits=1)
        rows.setdefault("bridge budget: light commands of 30, group commands of 3 accepted", {})[family] = \
            f"{span([b[0] for b in budgets])} of 30, {span([b[1] for b in budgets])} of 3"
        rows.setdefault("`isReachable` reads false after (s)", {})[family] = span(delays)
        rows.setdefault("timed out though applied (share of 200 lost commands)", {})[family] = \
            f"{sum(losses) / len(losses):.2f} ({span(losses, digits=2)})"
        rows.setdefault("discovery from 3 rooms in 60 s: found; found − delayMs (ms)", {})[family] = \
            f"{span([s[0] for s in scans])}; {min(s[1] for s in scans):+.0f} to {max(s[2] for s in scans):+.0f}"

        # What docs/fixtures.md documents for the family.
        broadcast = family in ("hue", "matter")
        if broadcast and max(spreads) != 0:
            differences.append(f"{family}: a group command should be one broadcast, but first steps were "
                               f"{span(spreads, ' ms')} apart")
        if not broadcast and max(spreads) == 0:
            differences.append(f"{family}: lights should take a group command each after its own latency, "
                               f"but all started together in every seed")
        expected_fade = 50.5 if family == "lifx" else 100
        if any(abs(value - expected_fade) > 0.01 for value in fades):
            differences.append(f"{family}: brightness should end at {expected_fade}, ended at {span(fades, digits=1)}")
        expected_budget = (10, 1) if family == "hue" else (30, 3)
        if any(budget != expected_budget for budget in budgets):
            differences.append(f"{family}: {expected_budget[0]} of 30 light and {expected_budget[1]} of 3 group "
                               f"commands should be accepted, were {sorted(set(budgets))}")
        expected_delay = {"hue": 10, "lifx": 10, "matter": 60, "generic": 0}[family]
        if any(delay != expected_delay for delay in delays):
            differences.append(f"{family}: isReachable should turn false after {expected_delay} s, "
                               f"did after {span(delays, ' s')}")
        mean_loss = sum(losses) / len(losses)
        if family in ("lifx", "matter") and not 0.4 <= mean_loss <= 0.6:
            differences.append(f"{family}: about half of lost commands should have been applied, {mean_loss:.2f} were")
        if family in ("hue", "generic") and mean_loss != 0:
            differences.append(f"{family}: no sender should time out on an applied command, {mean_loss:.2f} did")
        if any(scan[0] != 15 for scan in scans) or min(s[1] for s in scans) < -1000 or max(s[2] for s in scans) > 1000:
            differences.append(f"{family}: a search should find 15 lights within ±1000 ms of their delay, found "
                               f"{sorted(set(s[0] for s in scans))}, {min(s[1] for s in scans):+.0f} to "
                               f"{max(s[2] for s in scans):+.0f} ms")

    print(f"Measured on the virtual clock, seeds {SEEDS.start}–{SEEDS.stop - 1} (min–max over the seeds):\n")
    print("| measurement | " + " | ".join(f"`{family}`" for family in FAMILIES) + " |")
    print("|---|" + "---|" * len(FAMILIES))
    for measurement, cells in rows.items():
        print(f"| {measurement} | " + " | ".join(cells[family] for family in FAMILIES) + " |")
    print()
    if differences:
        print("Differences from docs/fixtures.md:")
        for difference in differences:
            print(f"- {difference}")
    else:
        print("Every figure agrees with the rules docs/fixtures.md documents.")
    print(f"\n({time.monotonic() - started:.1f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
