"""qhue (a thin wrapper that turns the Hue API v1's URLs into Python calls) against lumend's Hue bridge.

qhue checks nothing itself: each call is a GET, or a PUT when given keywords, and any answer other than
HTTP 200, or an error entry in the answer, raises. The calls here are the ones its README shows.
"""

import builtins

import pytest
from qhue import Bridge, QhueException, create_new_username

from conftest import HTTP_ARGS, bridge_address, drive, light_scope


def paired(lumend, monkeypatch) -> Bridge:
    """A bridge paired as qhue's README pairs one: `create_new_username` asks the user to press the link
    button and then Return, which the test does."""
    monkeypatch.setattr(builtins, "input", lambda prompt="": "")
    lumend.call("pressLinkButton", in_scope=lumend.simulation())
    username = create_new_username(bridge_address(lumend))
    return Bridge(bridge_address(lumend), username)


@pytest.mark.lumend(args=HTTP_ARGS)
def test_a_user_is_made_only_after_the_link_button(lumend, monkeypatch):
    monkeypatch.setattr(builtins, "input", lambda prompt="": "")
    with pytest.raises(QhueException) as refused:
        create_new_username(bridge_address(lumend))
    assert refused.value.type_id == "101"
    bridge = paired(lumend, monkeypatch)
    assert len(bridge.username) == 40
    assert bridge.config()["name"] == "Demo Home"
    assert len(bridge.config()["mac"].split(":")) == 6


@pytest.mark.lumend(args=HTTP_ARGS)
def test_the_whole_state_has_every_top_level_resource(lumend, monkeypatch):
    bridge = paired(lumend, monkeypatch)
    everything = bridge()
    for key in ("lights", "groups", "config", "schedules", "scenes", "rules", "sensors", "resourcelinks"):
        assert key in everything, key
    # Every collection qhue's README lists reads as a dictionary of its own.
    assert bridge.sensors() == {} and bridge.rules() == {} and bridge.schedules() == {}
    assert {light["name"] for light in bridge.lights().values()} >= {"Ceiling", "Floor Lamp", "Reading Light"}


@pytest.mark.lumend(args=HTTP_ARGS)
def test_the_readme_calls_change_a_light_and_a_group(lumend, monkeypatch, hue_numbers):
    bridge = paired(lumend, monkeypatch)
    number = hue_numbers["living-room.ceiling"]
    ceiling = light_scope(lumend, "living-room.ceiling")
    # The README's three spellings of one change, each with a level of its own, read back after each (by each
    # spelling): one that reached nothing would leave the level before it.
    spellings = (
        (101, lambda bri: bridge.lights[number].state(on=True, bri=bri, hue=9000, transitiontime=0)),
        (128, lambda bri: bridge.lights(number, "state", bri=bri, hue=9000, transitiontime=0)),
        (177, lambda bri: bridge("lights", number, "state", bri=bri, hue=9000, transitiontime=0)),
    )
    for bri, spelling in spellings:
        drive(lumend, lambda: spelling(bri))  # noqa: B023 - called before the loop moves on
        lumend.settle()
        assert lumend.get("isOn", in_scope=ceiling) is True
        state = bridge.lights[number]()["state"]
        assert (state["bri"], state["hue"]) == (bri, 9000), bri
        assert bridge.lights(number)["state"]["bri"] == bri
        assert bridge("lights", number)["state"]["bri"] == bri
    # A group's attributes, with the `class_` escape for a Python keyword.
    answer = drive(lumend, lambda: bridge.groups[1](class_="Hallway"))
    assert answer == [{"success": {"/groups/1/class": "Hallway"}}]
    assert bridge.groups[1]()["class"] == "Hallway"
    drive(lumend, lambda: bridge.groups[1].action(on=False))
    lumend.settle()
    assert lumend.get("isOn", in_scope=ceiling) is False


@pytest.mark.lumend(args=HTTP_ARGS)
def test_a_scene_s_light_state_is_changed_as_the_readme_changes_it(lumend, monkeypatch, hue_numbers):
    bridge = paired(lumend, monkeypatch)
    number = hue_numbers["living-room.floor-lamp"]
    made = drive(
        lumend,
        lambda: bridge.scenes(name="Evening", lights=[number], recycle=False, http_method="post"),
    )
    scene = made[0]["success"]["id"]
    drive(lumend, lambda: bridge.scenes[scene].lightstates[number](on=True, bri=77, ct=300))
    stored = bridge.scenes[scene]()["lightstates"][number]
    assert (stored["on"], stored["bri"], stored["ct"]) == (True, 77, 300)
    drive(lumend, lambda: bridge.groups[0].action(scene=scene))
    lumend.settle()
    lamp = light_scope(lumend, "living-room.floor-lamp")
    assert lumend.get("isOn", in_scope=lamp) is True
    assert lumend.get("colorTemperature", in_scope=lamp) == 300
    drive(lumend, lambda: bridge("scenes", scene, http_method="delete"))
    assert scene not in bridge.scenes()


@pytest.mark.lumend(args=HTTP_ARGS)
def test_errors_carry_the_type_and_address_qhue_reports(lumend, monkeypatch):
    bridge = paired(lumend, monkeypatch)
    with pytest.raises(QhueException) as missing:
        bridge("rules", 1, http_method="delete")
    assert missing.value.type_id == "3"
    assert missing.value.address == "/rules/1"
    with pytest.raises(QhueException) as unknown:
        Bridge(bridge_address(lumend), "not-a-user").lights()
    assert unknown.value.type_id == "1"
