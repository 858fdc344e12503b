"""Scenes and created groups, as phue and aiohue (Home Assistant's `hue.activate_scene`) use them."""

import asyncio
import os

import pytest
from aiohue import HueBridgeV1
from aiohue.util import create_app_key
from phue import Bridge

from conftest import HTTP_ARGS, bridge_address, drive, light_scope


def phue_bridge(lumend, tmp_path) -> Bridge:
    lumend.call("pressLinkButton", in_scope=lumend.simulation())
    return Bridge(bridge_address(lumend), config_file_path=os.path.join(tmp_path, "phue.conf"))


@pytest.mark.lumend(args=HTTP_ARGS)
def test_phue_stores_a_scene_and_runs_it_by_name(lumend, tmp_path, hue_numbers):
    bridge = phue_bridge(lumend, tmp_path)
    ceiling, lamp = int(hue_numbers["living-room.ceiling"]), int(hue_numbers["living-room.floor-lamp"])
    drive(lumend, lambda: bridge.set_light([ceiling, lamp], {"on": True, "bri": 254, "transitiontime": 0}))
    created = bridge.request(
        "POST",
        f"/api/{bridge.username}/scenes",
        {"name": "Dinner", "lights": [str(ceiling), str(lamp)], "recycle": False},
    )
    scene_id = created[0]["success"]["id"]
    assert [scene.name for scene in bridge.scenes] == ["Dinner"]
    stored = bridge.request("GET", f"/api/{bridge.username}/scenes/{scene_id}")
    assert stored["lightstates"][str(ceiling)]["bri"] == 254
    drive(lumend, lambda: bridge.set_group(1, {"on": False, "transitiontime": 0}))
    lumend.advance(1_000)  # the bridge takes one group command a second
    # phue finds the group and the scene by name and sends {"scene": id, "transitiontime": 4} to the group.
    drive(lumend, lambda: bridge.run_scene("Living Room", "Dinner"))
    lumend.settle()
    assert lumend.get("isOn", in_scope=light_scope(lumend, "living-room.ceiling")) is True
    assert lumend.get("brightness", in_scope=light_scope(lumend, "living-room.floor-lamp")) == 100
    assert lumend.get("isOn", in_scope=light_scope(lumend, "living-room.reading")) is False
    assert bridge.delete_scene(scene_id) == [{"success": f"/scenes/{scene_id} deleted"}]
    assert bridge.scenes == []


@pytest.mark.lumend(args=HTTP_ARGS)
def test_phue_creates_switches_and_deletes_a_group(lumend, tmp_path, hue_numbers):
    bridge = phue_bridge(lumend, tmp_path)
    reading = hue_numbers["living-room.reading"]
    created = bridge.create_group("Corner", [int(reading)])
    number = int(created[0]["success"]["id"])
    assert bridge.get_group(number, "lights") == [reading]
    assert bridge.get_group_id_by_name("Corner") == number
    drive(lumend, lambda: bridge.set_group(number, "on", True))
    lumend.settle()
    assert lumend.get("isOn", in_scope=light_scope(lumend, "living-room.reading")) is True
    assert bridge.delete_group(number) == [{"success": f"/groups/{number} deleted"}]
    # A room is the home's: the bridge will not delete it.
    assert bridge.delete_group(1)[0]["error"]["type"] == 305


@pytest.mark.lumend(args=HTTP_ARGS)
def test_aiohue_lists_scenes_and_activates_one_as_home_assistant_does(lumend, hue_numbers):
    lumend.call("pressLinkButton", in_scope=lumend.simulation())
    address = bridge_address(lumend)
    username = asyncio.run(create_app_key(address, "lumen-interop#aiohue"))
    ceiling = hue_numbers["living-room.ceiling"]

    async def store():
        bridge = HueBridgeV1(address, username)
        await bridge.initialize()
        try:
            created = await bridge.request(
                "post",
                "scenes",
                json={
                    "name": "Movie",
                    "lights": [ceiling],
                    "lightstates": {ceiling: {"on": True, "bri": 30, "xy": [0.5, 0.4]}},
                },
            )
            return created[0]["success"]["id"]
        finally:
            await bridge.close()

    scene_id = asyncio.run(store())

    async def activate():
        bridge = HueBridgeV1(address, username)
        await bridge.initialize()
        try:
            scene = bridge.scenes[scene_id]
            assert (scene.name, scene.lights, scene.owner, scene.locked) == ("Movie", [ceiling], username, False)
            # Home Assistant's hue.activate_scene on a v1 bridge: the group's action with the scene's ID.
            await bridge.groups["1"].set_action(scene=scene.id, transitiontime=0)
        finally:
            await bridge.close()

    drive(lumend, lambda: asyncio.run(activate()))
    lumend.settle()
    scope = light_scope(lumend, "living-room.ceiling")
    assert lumend.get("isOn", in_scope=scope) is True
    assert lumend.get("brightness", in_scope=scope) == 12.3

