"""The examples of docs/testing.md, as it shows them: every Python block there is here, word for word."""

import json
import socket
import struct
import urllib.request

import pytest


@pytest.mark.lumend(fixture="homes/lab.json")
def test_a_lamp_turns_on_once_the_clock_moves(lumend):
    lamp = lumend.open("light", in_scope=lumend.open("room", configuration="lab"), configuration="lab.lamp")
    pending = lumend.set("isOn", True, in_scope=lamp, wait=False)   # sent; answered once the lamp applies it
    lumend.settle()                                                 # the clock moves until nothing is pending
    assert pending.result() is True and lumend.get("isOn", in_scope=lamp) is True


@pytest.mark.lumend(fixture="homes/lab.json", seed=7)
def test_an_unreachable_lamp_is_reported(lumend):
    simulation = lumend.open("simulation")
    lumend.call("setReachable", {"light": "lab.lamp", "reachable": False}, in_scope=simulation)
    lamp = lumend.open("light", in_scope=lumend.open("room", configuration="lab"), configuration="lab.lamp")
    assert lumend.get("isReachable", in_scope=lamp) is False


@pytest.mark.lumend(fixture="homes/lab.json")
def test_the_lamp_was_dimmed_once_by_this_session(lumend):
    lamp = lumend.open("light", in_scope=lumend.open("room", configuration="lab"), configuration="lab.lamp")
    lumend.set_state(lamp, isOn=True, brightness=30)        # answered as the clock runs itself
    lumend.assert_command("lab.lamp", {"isOn": True, "brightness": 30}, source="session", outcome="applied")
    lumend.assert_state("lab.lamp", isOn=True, brightness=30)
    lumend.clear_commands()                          # what comes next is asserted on its own
    lumend.assert_command("lab.lamp", count=0)


@pytest.mark.lumend(hue=True)
def test_an_app_turns_the_ceiling_up_over_the_hue_bridge(lumend):
    put = urllib.request.Request(
        f"{lumend.hue_url}/api/{lumend.hue_user}/lights/1/state", method="PUT",
        data=json.dumps({"on": True, "bri": 254}).encode())
    answer = json.load(urllib.request.urlopen(put))        # the clock runs itself while the bridge waits
    assert answer[1] == {"success": {"/lights/1/state/bri": 254}}
    lumend.settle()                                        # and the 400 ms fade a bridge gives by default
    lumend.assert_command("living-room.ceiling", {"isOn": True, "brightness": 100}, source="hue")
    lumend.assert_state("living-room.ceiling", isOn=True, brightness=100)


def lifx_message(kind: int, payload: bytes = b"") -> bytes:
    """A LIFX LAN message for the bulb it is sent to (tagged, so no target), asking to be acknowledged."""
    size = 36 + len(payload)
    return struct.pack("<HHI8s6sBB8sHH", size, 0x3400, 7, bytes(8), bytes(6), 0x02, 1, bytes(8), kind, 0) + payload


@pytest.mark.lumend(lifx=True, clock="virtual")
def test_a_lifx_app_turns_a_bedside_lamp_on(lumend):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as app:
        app.sendto(lifx_message(117, struct.pack("<HI", 65535, 0)), lumend.lifx_addresses["bedroom.bedside-left"])
        lumend.wait_for_commands(1, light="bedroom.bedside-left", source="lifx")    # Light.SetPower, on
        lumend.settle()
        app.settimeout(5)
        assert struct.unpack_from("<H", app.recv(1024), 32)[0] == 45                # Acknowledgement
    lumend.assert_command("bedroom.bedside-left", {"isOn": True}, source="lifx", outcome="applied")
    lumend.assert_state("bedroom.bedside-left", isOn=True)


@pytest.mark.lumend(args=["--start", "2026-12-04T22:59:00+01:00"])
def test_the_night_begins(lumend):
    lumend.advance(60_000)
    assert lumend.wall_time().hour == 23


def test_docs_testing_md_shows_exactly_these_tests():
    import pathlib
    import re

    here = pathlib.Path(__file__)
    docs = (here.parents[3] / "docs" / "testing.md").read_text()
    shown = re.findall(r"```python\n(.*?)\n```", docs, re.S)
    assert len(shown) >= 4
    for block in shown:
        assert block in here.read_text(), f"docs/testing.md shows a block test_example.py lacks:\n{block}"
