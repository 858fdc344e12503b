"""Interoperability tests: clients Lumen did not write (aiohue, phue) against a real lumend's Hue bridge.

Each test gets a fresh lumend on the virtual clock (the `lumend` fixture of Lumen's pytest plugin) with its
HTTP listener on a free port. A command waits for its light's latency, so a test runs the client's call on a
thread and moves the clock until the call returns (`drive`).
"""

import re
import threading

import pytest

pytest_plugins = ["lumen.pytest_plugin"]

HTTP_ARGS = ["--http", "127.0.0.1:0"]


def bridge_address(lumend) -> str:
    """`127.0.0.1:PORT` of the Hue bridge, from lumend's log."""
    match = re.search(r"Hue bridge \(API v1\) on http://(127\.0\.0\.1:\d+)/api", lumend.daemon.stderr)
    assert match, lumend.daemon.stderr
    return match.group(1)


def drive(lumend, call, step_ms: float = 50, limit_ms: float = 120_000):
    """Runs `call` on a thread, advancing lumend's virtual clock until it returns; returns what it returned."""
    outcome = {}

    def run():
        try:
            outcome["value"] = call()
        except BaseException as error:  # noqa: BLE001 - handed back to the test
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    advanced = 0.0
    while thread.is_alive() and advanced < limit_ms:
        thread.join(0.02)
        if thread.is_alive():
            lumend.advance(step_ms)
            advanced += step_ms
    thread.join(10)
    assert not thread.is_alive(), f"the client's call did not return within {limit_ms} ms of simulated time"
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def light_scope(lumend, light: str) -> int:
    """A scope on `light`, opened through its room."""
    room = light.split(".")[0]
    return lumend.open("light", in_scope=lumend.open("room", configuration=room), configuration=light)


@pytest.fixture
def hue_numbers():
    """Hue's numbers of the demo home's lights behind the bridge, in the home's order (LIFX bulbs are on the
    LAN, not behind it)."""
    return {
        "living-room.ceiling": "1",
        "living-room.floor-lamp": "2",
        "living-room.reading": "4",
    }
