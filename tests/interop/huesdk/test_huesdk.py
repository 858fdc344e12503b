"""huesdk (a small synchronous Hue client) against lumend's bridge, unchanged.

huesdk reads over HTTPS and writes over plain HTTP to the same host, with no port: lumend listens on 80 and 443,
so the test runs in a network namespace of its own (the Makefile's `unshare -rn`).
"""

import pytest

from conftest import drive, missing

try:
    from huesdk import Hue
except ImportError as error:  # It is pinned in the Makefile's INTEROP_PKGS; a bare environment may lack it.
    missing(f"huesdk is not installed ({error})")


@pytest.mark.lumend(args=["--http", "127.0.0.1:80", "--https", "127.0.0.1:443"], clock="virtual")
def test_pairs_reads_and_switches_lights(lumend):
    lumend.call("pressLinkButton", in_scope=lumend.simulation())
    username = Hue.connect(bridge_ip="127.0.0.1")
    hue = Hue(bridge_ip="127.0.0.1", username=username)
    lights = hue.get_lights()
    assert lights and all(light.name for light in lights)
    light = next(light for light in lights if light.bri is not None)
    drive(lumend, lambda: light.on())
    drive(lumend, lambda: light.set_brightness(200))
    shown = next(each for each in hue.get_lights() if each.id_ == light.id_)
    assert shown.is_on is True and shown.bri == 200
    drive(lumend, lambda: light.off())
    assert next(each for each in hue.get_lights() if each.id_ == light.id_).is_on is False
