"""LIFX LAN clients Lumen did not write (lifxlan, aiolifx, lifx-async) against a real lumend's bulbs.

LIFX clients find bulbs by broadcasting to UDP port 56700, so these tests run in a network namespace of their
own (`make interop` starts them under `unshare -n`, with an address on loopback to broadcast on): lumend's
bulbs listen on 56700 there without taking the port from anything else on the machine. Each test gets a fresh
lumend on the virtual clock; a client's change waits for the bulb's latency, so it runs on a thread while the
clock moves (`drive`).
"""

import sys
import os

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))

from harness import drive, light_scope  # noqa: E402,F401

pytest_plugins = ["lumen.pytest_plugin"]

LIFX_ARGS = ["--lifx", "0.0.0.0:56700"]

# The demo home's bulbs on the LIFX LAN, by label.
BULBS = {"TV Lightstrip": "living-room.tv-strip", "Bedside Left": "bedroom.bedside-left",
         "Bedside Right": "bedroom.bedside-right"}
