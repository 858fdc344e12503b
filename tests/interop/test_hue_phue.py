"""phue (a long-standing synchronous Hue library) against lumend's Hue bridge."""

import os

import pytest
from phue import Bridge, PhueRegistrationException

from conftest import HTTP_ARGS, bridge_address, drive, light_scope


def paired(lumend, tmp_path) -> Bridge:
    lumend.call("pressLinkButton", in_scope=lumend.simulation())
    return Bridge(bridge_address(lumend), config_file_path=os.path.join(tmp_path, "phue.conf"))


@pytest.mark.lumend(args=HTTP_ARGS)
def test_registration_needs_the_link_button(lumend, tmp_path):
    with pytest.raises(PhueRegistrationException):
        Bridge(bridge_address(lumend), config_file_path=os.path.join(tmp_path, "phue.conf"))
    bridge = paired(lumend, tmp_path)
    assert len(bridge.username) == 40
    assert bridge.name == "Demo Home"


@pytest.mark.lumend(args=HTTP_ARGS)
def test_lights_groups_switching_and_dimming(lumend, tmp_path, hue_numbers):
    bridge = paired(lumend, tmp_path)
    names = {light.name for light in bridge.lights}
    assert {"Ceiling", "Floor Lamp", "Reading Light"} <= names and "TV Lightstrip" not in names
    assert bridge.get_group(1)["name"] == "Living Room"
    number = int(hue_numbers["living-room.floor-lamp"])
    drive(lumend, lambda: bridge.set_light(number, {"on": True, "bri": 254, "ct": 250}))
    lumend.settle()  # the bridge's default transition, 400 ms, runs on after the answer
    lamp = light_scope(lumend, "living-room.floor-lamp")
    assert lumend.get("brightness", in_scope=lamp) == 100
    assert lumend.get("colorTemperature", in_scope=lamp) == 250
    # A change over the socket is what phue reads next.
    lumend.set("isOn", False, in_scope=lamp, wait=False)
    lumend.settle()
    assert bridge.get_light(number, "on") is False
    # A room's group action reaches its lights behind the bridge.
    drive(lumend, lambda: bridge.set_group(1, "on", True))
    lumend.settle()
    assert lumend.get("isOn", in_scope=lamp) is True


@pytest.mark.lumend(args=HTTP_ARGS)
def test_errors_come_as_the_hue_api_gives_them(lumend, tmp_path, hue_numbers):
    bridge = paired(lumend, tmp_path)
    missing = bridge.request("GET", f"/api/{bridge.username}/lights/999")
    assert missing[0]["error"]["type"] == 3
    plug = next(light.light_id for light in bridge.lights if light.type == "On/Off plug-in unit")
    no_bri = bridge.request("PUT", f"/api/{bridge.username}/lights/{plug}/state", {"bri": 100})
    assert no_bri[0]["error"]["type"] == 6
    bad = bridge.request("PUT", f"/api/{bridge.username}/lights/{plug}/state", {"on": "yes"})
    assert bad[0]["error"]["type"] == 7
    # A Hue bulb that is off refuses brightness alone (error 201), as on a bridge.
    number = int(hue_numbers["living-room.ceiling"])
    drive(lumend, lambda: bridge.set_light(number, "on", False, transitiontime=0))
    off = drive(lumend, lambda: bridge.request("PUT", f"/api/{bridge.username}/lights/{number}/state", {"bri": 10}))
    assert off[0]["error"]["type"] == 201
    rename = drive(lumend, lambda: bridge.request("PUT", f"/api/{bridge.username}/lights/{number}", {"name": "Big"}))
    assert rename[0]["success"] == {f"/lights/{number}/name": "Big"}


@pytest.mark.lumend(args=HTTP_ARGS)
def test_a_state_read_and_sent_back_sets_the_light(lumend, tmp_path, hue_numbers):
    """The state phue read, sent back whole with another brightness: a bridge answers the parameters it does not
    take (`colormode`, `reachable`, `mode`) with an error each and still takes the others."""
    bridge = paired(lumend, tmp_path)
    number = int(hue_numbers["living-room.ceiling"])
    drive(lumend, lambda: bridge.set_light(number, {"on": True, "xy": [0.3, 0.2]}, transitiontime=0))
    lumend.settle()
    state = bridge.get_light(number)["state"]
    state.update(bri=42)
    answers = drive(lumend, lambda: bridge.set_light(number, state, transitiontime=0))[0]
    errors = {entry["error"]["address"] for entry in answers if "error" in entry}
    assert errors == {f"/lights/{number}/state/{name}" for name in ("colormode", "reachable", "mode")}, answers
    assert {"success": {f"/lights/{number}/state/bri": 42}} in answers
    lumend.settle()
    after = bridge.get_light(number)["state"]
    assert (after["bri"], after["on"]) == (42, True)
    # Its colour as it was: `xy` is taken before the `ct`, `hue` and `sat` beside it.
    assert (after["colormode"], after["xy"]) == ("xy", [0.3, 0.2])


@pytest.mark.lumend(args=HTTP_ARGS)
def test_a_light_s_hue_and_saturation_set_one_at_a_time(lumend, tmp_path, hue_numbers):
    """phue's `Light.hue` and `Light.saturation` each send their half alone: the other half stays the light's."""
    bridge = paired(lumend, tmp_path)
    number = int(hue_numbers["living-room.ceiling"])
    light = next(light for light in bridge.lights if light.light_id == number)
    light.transitiontime = 0
    drive(lumend, lambda: setattr(light, "on", True))
    drive(lumend, lambda: setattr(light, "hue", 25500))
    drive(lumend, lambda: setattr(light, "saturation", 200))
    lumend.settle()
    assert (light.hue, light.saturation) == (25500, 200)
    drive(lumend, lambda: setattr(light, "hue", 46920))
    lumend.settle()
    assert (light.hue, light.saturation) == (46920, 200)


@pytest.mark.lumend(args=HTTP_ARGS)
def test_a_light_and_a_group_renamed_with_a_transition_time_set(lumend, tmp_path, hue_numbers):
    """Once a transition time is set on a phue light, phue sends it with every change, a new name too: the bridge
    takes the name and answers the transition time beside it with error 6, each parameter for itself."""
    bridge = paired(lumend, tmp_path)
    number = int(hue_numbers["living-room.floor-lamp"])
    light = next(light for light in bridge.lights if light.light_id == number)
    light.transitiontime = 10
    drive(lumend, lambda: setattr(light, "name", "Big Lamp"))
    assert bridge.get_light(number, "name") == "Big Lamp"
    answer = drive(lumend, lambda: bridge.set_group(1, "name", "Lounge", transitiontime=4))
    assert answer[0] == [{"success": {"/groups/1/name": "Lounge"}},
                         {"error": {"type": 6, "address": "/groups/1/transitiontime",
                                    "description": "parameter, transitiontime, not available"}}], answer
    assert bridge.get_group(1)["name"] == "Lounge"
