"""LIFX LAN clients Lumen did not write (lifxlan, aiolifx, lifx-async, photons) against a real lumend's bulbs.

LIFX clients find bulbs by broadcasting to UDP port 56700, so these tests run in a network namespace of their
own (`make interop` starts them under `unshare -n`, with a LAN of 10.77.0.0/24 on loopback to broadcast on and an
address for each bulb, as an operator gives them): lumend's bulbs listen on 56700 there without taking the port
from anything else on the machine, each at its own address, as bulbs on a LAN are. Each test gets a fresh
lumend on the virtual clock; a client's change waits for the bulb's latency, so it runs on a thread while the
clock moves (`drive`).
"""

import sys
import os

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))

from harness import drive, light_scope  # noqa: E402,F401

pytest_plugins = ["lumen.pytest_plugin"]

# The first bulb's address: the others take the next ones, in the home's order.
LIFX_ARGS = ["--lifx", "10.77.0.10:56700"]

# The demo home's bulbs on the LIFX LAN, by label.
BULBS = {"TV Lightstrip": "living-room.tv-strip", "Bedside Left": "bedroom.bedside-left",
         "Bedside Right": "bedroom.bedside-right"}

# Where each bulb answers: consecutive addresses from the one --lifx gives, in the home's order.
ADDRESSES = {"TV Lightstrip": "10.77.0.10", "Bedside Left": "10.77.0.11", "Bedside Right": "10.77.0.12"}
