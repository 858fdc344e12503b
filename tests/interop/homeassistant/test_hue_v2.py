"""Home Assistant's Hue integration on its API v2 path (aiohue's HueBridgeV2 underneath) against lumend's bridge,
set up through its config flow as a user does.

Home Assistant takes the v2 path for a bridge that answers `GET https://HOST/clip/v2/resource` without a key
with 403, and reads `http://HOST/api/config` to know it is a bridge: one host for both schemes, so lumend listens
on ports 80 and 443, in the network namespace the Makefile gives these tests.

It runs on the pytest plugin's default clock, the one that runs itself: on the v2 path Home Assistant does not poll
on wall time but hears the bridge's event stream, and its waits here (`asyncio.sleep`) sleep on the simulation's
clock, so fades and latencies take no real time.
"""

from __future__ import annotations

import json
import ssl
import urllib.request
from typing import Any

import pytest

from conftest import landed, light_scope, run_with_home_assistant, state_of, wait_for

HUE_V2_ARGS = ["--http", "127.0.0.1:80", "--https", "127.0.0.1:443"]
HOST = "127.0.0.1"


def v2(key: str, method: str, path: str, body: Any = None) -> Any:
    """What lumend's bridge answers to a v2 request, sent without Home Assistant (as the Hue app would)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    request = urllib.request.Request(
        f"https://{HOST}/clip/v2/{path}", method=method, headers={"hue-application-key": key},
        data=None if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(request, timeout=10, context=context) as answer:
        return json.load(answer)["data"]


async def set_up_hue_v2(hass, lumend) -> Any:
    """Runs Home Assistant's Hue config flow against lumend's bridge; returns the v2 config entry it made."""
    from homeassistant.config_entries import SOURCE_USER
    from homeassistant.data_entry_flow import FlowResultType

    flow = hass.config_entries.flow
    result = await flow.async_init("hue", context={"source": SOURCE_USER})
    assert (result["type"], result["step_id"]) == (FlowResultType.FORM, "manual"), result
    result = await flow.async_configure(result["flow_id"], {"host": HOST})
    assert (result["type"], result["step_id"]) == (FlowResultType.FORM, "link"), result
    await hass.async_add_executor_job(lambda: lumend.call("pressLinkButton", in_scope=lumend.simulation()))
    result = await flow.async_configure(result["flow_id"], {})
    assert result["type"] == FlowResultType.CREATE_ENTRY, result
    entry = result["result"]
    assert entry.data["api_version"] == 2
    await hass.async_block_till_done()
    return entry


def entities(hass, entry, domain: str) -> dict[str, str]:
    """The entities of the Hue config entry in `domain`, by unique id."""
    from homeassistant.helpers import entity_registry as er

    registry = er.async_get(hass)
    return {item.unique_id: item.entity_id for item in er.async_entries_for_config_entry(registry, entry.entry_id)
            if item.domain == domain}


@pytest.mark.lumend(args=HUE_V2_ARGS)
def test_home_assistant_takes_the_v2_path_and_drives_lights_and_scenes(lumend, tmp_path):
    async def scenario(hass):
        from homeassistant.config_entries import ConfigEntryState

        entry = await set_up_hue_v2(hass, lumend)
        assert entry.state is ConfigEntryState.LOADED
        key = entry.data["api_key"]
        lights = await hass.async_add_executor_job(lambda: v2(key, "GET", "resource/light"))
        found = await wait_for(hass, "an entity for every light", lambda: (
            e if len(e := entities(hass, entry, "light")) >= len(lights) else None))
        assert {light["id"] for light in lights} <= set(found)
        ceiling = next(light for light in lights if light["metadata"]["name"] == "Ceiling")
        entity_id = found[ceiling["id"]]

        await hass.services.async_call(
            "light", "turn_on", {"entity_id": entity_id, "brightness": 128, "color_temp_kelvin": 3000},
            blocking=True)
        await wait_for(hass, "the ceiling on at half brightness", lambda: (
            (s := state_of(hass, entity_id)).state == "on" and s.attributes.get("brightness") in (127, 128)),
            show=lambda: state_of(hass, entity_id))
        truth = await landed(hass, lumend, "living-room.ceiling")
        assert truth["state"]["isOn"] is True and truth["state"]["colorTemperature"] == 333, truth

        # A change made over the socket reaches Home Assistant through the event stream, with no polling.
        scope = light_scope(lumend, "living-room.ceiling")
        await hass.async_add_executor_job(lambda: lumend.set("isOn", False, in_scope=scope))
        await wait_for(hass, "the ceiling off", lambda: state_of(hass, entity_id).state == "off", timeout=5)

        # A scene of the living room, stored over v2, becomes a scene entity, and activating it recalls it.
        room = next(room for room in await hass.async_add_executor_job(lambda: v2(key, "GET", "resource/room"))
                    if room["metadata"]["name"] == "Living Room")
        body = {"metadata": {"name": "Lumen Evening"}, "group": {"rid": room["id"], "rtype": "room"},
                "actions": [{"target": {"rid": ceiling["id"], "rtype": "light"},
                             "action": {"on": {"on": True}, "dimming": {"brightness": 30.0}}}]}
        made = await hass.async_add_executor_job(lambda: v2(key, "POST", "resource/scene", body))
        scenes = await wait_for(hass, "a scene entity for it", lambda: (
            s if made[0]["rid"] in (s := entities(hass, entry, "scene")) else None))
        await hass.services.async_call("scene", "turn_on", {"entity_id": scenes[made[0]["rid"]]}, blocking=True)
        await wait_for(hass, "the ceiling back on at 30 %", lambda: (
            (s := state_of(hass, entity_id)).state == "on" and s.attributes.get("brightness") in (76, 77)),
            show=lambda: state_of(hass, entity_id))
        scene = await hass.async_add_executor_job(lambda: v2(key, "GET", f"resource/scene/{made[0]['rid']}"))
        assert scene[0]["status"]["active"] == "static", scene

        # Hue's own activate_scene: its speed is stored on the scene, its brightness overrides the scene's.
        await hass.services.async_call(
            "hue", "activate_scene", {"entity_id": scenes[made[0]["rid"]], "brightness": 128, "speed": 40},
            blocking=True)
        await wait_for(hass, "the ceiling at half brightness from the scene", lambda: (
            state_of(hass, entity_id).attributes.get("brightness") in (127, 128)),
            show=lambda: state_of(hass, entity_id))
        truth = await landed(hass, lumend, "living-room.ceiling")
        assert abs(truth["state"]["brightness"] - 128 / 255 * 100) < 0.1, truth
        await wait_for(hass, "the scene's speed", lambda: (
            state_of(hass, scenes[made[0]["rid"]]).attributes.get("speed") == 0.4),
            show=lambda: state_of(hass, scenes[made[0]["rid"]]))

        # A light of the scene changed makes it inactive, as a bridge reports it.
        await hass.services.async_call("light", "turn_off", {"entity_id": entity_id}, blocking=True)
        await wait_for(hass, "the ceiling off", lambda: state_of(hass, entity_id).state == "off")
        scene = await hass.async_add_executor_job(lambda: v2(key, "GET", f"resource/scene/{made[0]['rid']}"))
        assert scene[0]["status"]["active"] == "inactive", scene

    run_with_home_assistant(tmp_path, scenario)
