"""python-hue-v2 (a small synchronous API v2 client) against lumend's bridge over HTTPS, unchanged."""

import pytest

from conftest import HTTPS_ARGS, https_address, missing

try:
    from python_hue_v2 import Hue
except ImportError as error:  # It is pinned in the Makefile's INTEROP_PKGS; a bare environment may lack it.
    missing(f"python-hue-v2 is not installed ({error})")

pytestmark = pytest.mark.lumend(args=HTTPS_ARGS, clock="real")


def test_pairs_reads_and_switches_lights(lumend):
    lumend.call("pressLinkButton", in_scope=lumend.simulation())
    hue = Hue(https_address(lumend))
    key = hue.bridge.connect()
    assert len(key) == 40
    lights = hue.lights
    assert lights and all(light.metadata["name"] for light in lights)
    light = next(light for light in lights if "dimming" in light.data_dict)
    light.on = True
    assert light.on is True
    light.brightness = 37.5
    assert light.brightness == 37.5
    light.set_state(False, duration_ms=0)
    assert light.on is False
    assert {room.get().data_dict["metadata"]["name"] for room in hue.rooms}
    assert hue.grouped_lights
