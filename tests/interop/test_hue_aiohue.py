"""aiohue (Home Assistant's Hue library, its v1 API) against lumend's Hue bridge."""

import asyncio

import aiohttp
import pytest
from aiohue import HueBridgeV1
from aiohue.errors import LinkButtonNotPressed, Unauthorized
from aiohue.util import create_app_key

from conftest import HTTP_ARGS, bridge_address, drive, light_scope


def run(coroutine):
    return asyncio.run(coroutine)


async def connected(address: str, username: str) -> HueBridgeV1:
    bridge = HueBridgeV1(address, username)
    await bridge.initialize()
    return bridge


def paired(lumend) -> str:
    lumend.call("pressLinkButton", in_scope=lumend.simulation())
    return run(create_app_key(bridge_address(lumend), "lumen-interop#aiohue"))


@pytest.mark.lumend(args=HTTP_ARGS)
def test_pairing_needs_the_link_button_and_the_user_is_kept(lumend):
    address = bridge_address(lumend)
    with pytest.raises(LinkButtonNotPressed):
        run(create_app_key(address, "lumen-interop#aiohue"))
    username = paired(lumend)
    assert len(username) == 40
    saved = lumend.call("snapshot", in_scope=lumend.simulation())
    assert [user["username"] for user in saved["hue"]["users"]] == [username]

    async def unauthorized():
        async with aiohttp.ClientSession() as session:
            bridge = HueBridgeV1(address, "not-a-user", session)
            await bridge.initialize()

    with pytest.raises(Unauthorized):
        run(unauthorized())


@pytest.mark.lumend(args=HTTP_ARGS)
def test_lights_and_groups_are_the_homes_behind_the_bridge(lumend, hue_numbers):
    username = paired(lumend)

    async def read():
        bridge = await connected(bridge_address(lumend), username)
        try:
            lights = {light.id: (light.name, light.type, light.state["reachable"]) for light in bridge.lights.values()}
            groups = {group.id: (group.name, group.type, group.lights) for group in bridge.groups.values()}
            return bridge.config.bridge_id, lights, groups
        finally:
            await bridge.close()

    bridge_id, lights, groups = run(read())
    assert bridge_id.startswith("001788FFFE")
    assert lights[hue_numbers["living-room.ceiling"]] == ("Ceiling", "Extended color light", True)
    assert lights[hue_numbers["living-room.reading"]][1] == "Dimmable light"
    # The LIFX bulbs are on the LAN, not behind the bridge.
    assert "TV Lightstrip" not in [name for name, _, _ in lights.values()]
    assert groups["1"] == ("Living Room", "Room", ["1", "2", "4"])


@pytest.mark.lumend(args=HTTP_ARGS)
def test_switching_and_dimming_is_seen_over_the_socket_and_the_other_way(lumend, hue_numbers):
    username = paired(lumend)
    number = hue_numbers["living-room.reading"]
    reading = light_scope(lumend, "living-room.reading")

    async def switch_on():
        bridge = await connected(bridge_address(lumend), username)
        try:
            await bridge.lights[number].set_state(on=True, bri=127, transitiontime=4)
        finally:
            await bridge.close()

    drive(lumend, lambda: run(switch_on()))
    lumend.settle()
    assert lumend.get("isOn", in_scope=reading) is True
    assert lumend.get("brightness", in_scope=reading) == 50.3
    # A change over the socket is what the bridge reports next.
    lumend.set("brightness", 100, in_scope=reading, wait=False)
    lumend.settle()

    async def state():
        bridge = await connected(bridge_address(lumend), username)
        try:
            return bridge.lights[number].state
        finally:
            await bridge.close()

    assert run(state())["bri"] == 254


@pytest.mark.lumend(args=HTTP_ARGS)
def test_an_unreachable_light_is_answered_by_the_bridge_and_reported_after_a_while(lumend, hue_numbers):
    username = paired(lumend)
    number = hue_numbers["living-room.ceiling"]
    lumend.call("setReachable", {"light": "living-room.ceiling", "reachable": False}, in_scope=lumend.simulation())
    lumend.advance(10_000)

    async def try_switch_off():
        bridge = await connected(bridge_address(lumend), username)
        try:
            reachable = bridge.lights[number].state["reachable"]
            await bridge.lights[number].set_state(on=False)
            return reachable
        finally:
            await bridge.close()

    # The bridge answers for a light it cannot reach, as a real one does; the client learns from `reachable`.
    assert drive(lumend, lambda: run(try_switch_off())) is False
    truth = lumend.device("living-room.ceiling")
    assert truth["reachable"] is False and truth["state"]["isOn"] is True


@pytest.mark.lumend(args=HTTP_ARGS)
def test_a_search_finds_the_lights_waiting_and_a_rename_sticks(lumend, hue_numbers):
    username = paired(lumend)
    address = bridge_address(lumend)

    async def search():
        bridge = await connected(address, username)
        try:
            await bridge.request("post", "lights")
            return await bridge.request("get", "lights/new")
        finally:
            await bridge.close()

    assert run(search())["lastscan"] == "active"
    lumend.advance(60_000)

    async def found_and_rename():
        bridge = await connected(address, username)
        try:
            new = await bridge.request("get", "lights/new")
            await bridge.request("put", f"lights/{hue_numbers['living-room.ceiling']}", json={"name": "Big Lamp"})
            await bridge.lights.update()
            return new, bridge.lights[hue_numbers["living-room.ceiling"]].name
        finally:
            await bridge.close()

    new, name = run(found_and_rename())
    assert new["lastscan"] != "active"
    assert {entry["name"] for key, entry in new.items() if key != "lastscan"} >= {"Hue Bloom"}
    assert name == "Big Lamp"
    assert lumend.get("name", in_scope=light_scope(lumend, "living-room.ceiling")) == "Big Lamp"
