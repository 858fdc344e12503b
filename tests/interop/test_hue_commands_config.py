"""Relative commands, effects, the bridge's configuration and its UPnP description, as aiohue and phue use them."""

import asyncio
import os
import re
import urllib.request

import pytest
from aiohue import HueBridgeV1
from aiohue.util import create_app_key
from phue import Bridge

from conftest import HTTP_ARGS, bridge_address, drive


def phue_bridge(lumend, tmp_path) -> Bridge:
    lumend.call("pressLinkButton", in_scope=lumend.simulation())
    return Bridge(bridge_address(lumend), config_file_path=os.path.join(tmp_path, "phue.conf"))


@pytest.mark.lumend(args=HTTP_ARGS)
def test_aiohue_steps_brightness_and_sets_an_effect(lumend, hue_numbers):
    lumend.call("pressLinkButton", in_scope=lumend.simulation())
    address = bridge_address(lumend)
    username = asyncio.run(create_app_key(address, "lumen-interop#aiohue"))
    ceiling = hue_numbers["living-room.ceiling"]

    async def step(**state):
        bridge = HueBridgeV1(address, username)
        await bridge.initialize()
        try:
            await bridge.lights[ceiling].set_state(**state)
            await bridge.lights.update()
            return bridge.lights[ceiling].state
        finally:
            await bridge.close()

    drive(lumend, lambda: asyncio.run(step(on=True, bri=100, transitiontime=0)))
    state = drive(lumend, lambda: asyncio.run(step(bri_inc=50, effect="colorloop", alert="select", transitiontime=0)))
    assert (state["bri"], state["effect"], state["alert"]) == (150, "colorloop", "select")
    state = drive(lumend, lambda: asyncio.run(step(bri_inc=-254, transitiontime=0)))
    assert state["bri"] == 1


@pytest.mark.lumend(args=HTTP_ARGS)
def test_phue_names_the_bridge_and_the_description_matches_the_config(lumend, tmp_path):
    bridge = phue_bridge(lumend, tmp_path)
    assert bridge.request("PUT", f"/api/{bridge.username}/config", {"name": "Lab Bridge"}) == [
        {"success": {"/config/name": "Lab Bridge"}}
    ]
    config = bridge.get_api()["config"]
    assert config["name"] == "Lab Bridge"
    with urllib.request.urlopen(f"http://{bridge_address(lumend)}/description.xml") as response:
        xml = response.read().decode()
    # A bridge's serial number is its MAC without colons, which is its bridge ID without the FFFE in the middle.
    serial = config["mac"].replace(":", "")
    assert re.fullmatch(r"001788[0-9a-f]{6}", serial), config["mac"]
    assert serial == (config["bridgeid"][:6] + config["bridgeid"][10:]).lower(), config
    assert f"<serialNumber>{serial}</serialNumber>" in xml
    assert "<friendlyName>Lab Bridge (" in xml
    gone = bridge.request("DELETE", f"/api/{bridge.username}/config/whitelist/{bridge.username}")
    assert gone == [{"success": f"/config/whitelist/{bridge.username} deleted"}]
    assert bridge.request("GET", f"/api/{bridge.username}/lights")[0]["error"]["type"] == 1
