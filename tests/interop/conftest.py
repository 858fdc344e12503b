"""Interoperability tests: clients Lumen did not write (aiohue, phue) against a real lumend's Hue bridge.

Each test gets a fresh lumend on the virtual clock (the `lumend` fixture of Lumen's pytest plugin) with its
HTTP listener on a free port. A command waits for its light's latency, so a test runs the client's call on a
thread and moves the clock until the call returns (`drive`).
"""

import os
import re

import pytest

from harness import drive, light_scope  # noqa: F401 - the tests import them from here

pytest_plugins = ["lumen.pytest_plugin"]

def missing(what: str) -> None:
    """What a test module needs is not there. Under `make interop` (which sets LUMEN_INTEROP=1 and installs every
    client it pins) that is a failure, so a run that tested nothing never passes; run on its own, the module is
    skipped, saying SKIPPED and why."""
    if os.environ.get("LUMEN_INTEROP") == "1":
        pytest.fail(f"{what}, and make interop needs it", pytrace=False)
    print(f"\nSKIPPED: {what}")
    pytest.skip(what, allow_module_level=True)


HTTP_ARGS = ["--http", "127.0.0.1:0"]
HTTPS_ARGS = ["--https", "127.0.0.1:0"]


def bridge_address(lumend) -> str:
    """`127.0.0.1:PORT` of the Hue bridge, as lumend said with READY=1."""
    assert lumend.hue_url, lumend.daemon.stderr
    return lumend.hue_url.removeprefix("http://")


def https_address(lumend) -> str:
    """`127.0.0.1:PORT` of the HTTPS listener, where the bridge serves API v2, from lumend's log."""
    match = re.search(r"API v2 on https://(127\.0\.0\.1:\d+)/clip/v2", lumend.daemon.stderr)
    assert match, lumend.daemon.stderr
    return match.group(1)


@pytest.fixture
def hue_numbers():
    """Hue's numbers of the demo home's lights behind the bridge, in the home's order (LIFX bulbs are on the
    LAN, not behind it)."""
    return {
        "living-room.ceiling": "1",
        "living-room.floor-lamp": "2",
        "living-room.reading": "4",
    }
