"""Home Assistant's Hue integration (its v1 bridge code, aiohue underneath) against lumend's Hue bridge, set up
through its config flow as a user does: manual host entry, then the link button."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from conftest import (
    HUE_ARGS,
    bridge_address,
    bridge_get,
    bridge_send,
    light_scope,
    landed,
    run_with_home_assistant,
    state_of,
    wait_for,
)


async def set_up_hue(hass, lumend) -> Any:
    """Runs Home Assistant's Hue config flow against lumend's bridge; returns the config entry it made."""
    from homeassistant.config_entries import SOURCE_USER
    from homeassistant.data_entry_flow import FlowResultType

    address = bridge_address(lumend)
    flow = hass.config_entries.flow
    # No bridge is found through the vendor's cloud here, so the flow asks for a host.
    result = await flow.async_init("hue", context={"source": SOURCE_USER})
    assert (result["type"], result["step_id"]) == (FlowResultType.FORM, "manual"), result
    result = await flow.async_configure(result["flow_id"], {"host": address})
    assert (result["type"], result["step_id"]) == (FlowResultType.FORM, "link"), result
    # Submitting before the button is pressed is refused, and the form is shown again.
    result = await flow.async_configure(result["flow_id"], {})
    assert (result["type"], result["step_id"], result["errors"]) == (
        FlowResultType.FORM, "link", {"base": "register_failed"}), result
    await hass.async_add_executor_job(lambda: lumend.call("pressLinkButton", in_scope=lumend.simulation()))
    result = await flow.async_configure(result["flow_id"], {})
    assert result["type"] == FlowResultType.CREATE_ENTRY, result
    entry = result["result"]
    assert entry.data["host"] == address
    assert entry.data["api_version"] == 1
    await hass.async_block_till_done()
    return entry


def hue_entities(hass, entry) -> dict[str, str]:
    """The light entities of the Hue config entry, by unique id."""
    from homeassistant.helpers import entity_registry as er

    registry = er.async_get(hass)
    return {
        item.unique_id: item.entity_id
        for item in er.async_entries_for_config_entry(registry, entry.entry_id)
        if item.domain == "light"
    }


@pytest.mark.lumend(args=HUE_ARGS)
def test_the_config_flow_pairs_and_every_light_becomes_an_entity(lumend, tmp_path):
    async def scenario(hass):
        entry = await set_up_hue(hass, lumend)
        from homeassistant.config_entries import ConfigEntryState

        assert entry.state is ConfigEntryState.LOADED
        # Home Assistant names the bridge by its id with Hue's FFFE infix dropped, as for a real bridge.
        bridge_id = bridge_get(bridge_address(lumend), "config")["bridgeid"].lower()
        assert bridge_id.startswith("001788fffe")
        assert entry.unique_id == bridge_id[:6] + bridge_id[10:]
        assert entry.title == f"Hue Bridge {entry.unique_id}"
        # The user Home Assistant made is one lumend keeps.
        saved = await hass.async_add_executor_job(lambda: lumend.call("snapshot", in_scope=lumend.simulation()))
        assert [user["username"] for user in saved["hue"]["users"]] == [entry.data["api_key"]]
        lights = bridge_get(bridge_address(lumend), f"{entry.data['api_key']}/lights")
        entities = await wait_for(hass, "an entity for every light", lambda: (
            found if len(found := hue_entities(hass, entry)) >= len(lights) else None))
        assert set(entities) == {light["uniqueid"] for light in lights.values()}
        for light in lights.values():
            state = state_of(hass, entities[light["uniqueid"]])
            assert state.attributes["friendly_name"] == light["name"]
            assert state.state == ("on" if light["state"]["on"] else "off")

    run_with_home_assistant(tmp_path, scenario)


def entity_of(hass, entry, lumend, number: str) -> str:
    """The entity id Home Assistant gave Hue light `number`."""
    light = bridge_get(bridge_address(lumend), f"{entry.data['api_key']}/lights/{number}")
    return hue_entities(hass, entry)[light["uniqueid"]]


async def turn_on(hass, entity_id: str, **data) -> None:
    await hass.services.async_call("light", "turn_on", {"entity_id": entity_id, **data}, blocking=True)


def brightnesses_reported(hass, entity_id: str) -> tuple[list[int], Callable[[], None]]:
    """Every brightness Home Assistant gives `entity_id` from now on, as its `state_changed` events carry it (a
    light off has none), and the call that stops listening."""
    from homeassistant.const import EVENT_STATE_CHANGED
    from homeassistant.core import callback

    reported: list[int] = []

    @callback
    def note(event) -> None:
        new = event.data.get("new_state")
        if event.data.get("entity_id") == entity_id and new is not None:
            if (brightness := new.attributes.get("brightness")) is not None:
                reported.append(brightness)

    return reported, hass.bus.async_listen(EVENT_STATE_CHANGED, note)


@pytest.mark.lumend(args=HUE_ARGS)
def test_turning_a_light_on_with_brightness_colour_temperature_and_colour(lumend, tmp_path, hue_numbers):
    async def scenario(hass):
        entry = await set_up_hue(hass, lumend)
        entity_id = entity_of(hass, entry, lumend, hue_numbers["living-room.ceiling"])

        # Brightness, colour temperature and a fade (Home Assistant takes colour and colour temperature in
        # separate calls).
        reported, stop = brightnesses_reported(hass, entity_id)
        await turn_on(hass, entity_id, brightness=128, color_temp_kelvin=3000, transition=0.5)
        state = await wait_for(hass, "the light on at half brightness, 3000 K", lambda: (
            s if (s := state_of(hass, entity_id)).state == "on" and s.attributes.get("brightness") == 128
            and s.attributes.get("color_mode") == "color_temp" else None), show=lambda: state_of(hass, entity_id))
        # 3000 K is 333 mireds on the wire; Home Assistant shows what the bridge reports back, in kelvin.
        assert abs(state.attributes["color_temp_kelvin"] - 3000) <= 10, state.attributes
        truth = await landed(hass, lumend, "living-room.ceiling")
        assert truth["state"]["isOn"] is True
        assert truth["state"]["colorTemperature"] == 333, truth
        # The bridge reports a command's target from the moment it takes it, as a Hue bridge does: Home
        # Assistant's refresh after the call, made while the light fades, shows no level on the way.
        stop()
        assert reported and set(reported) == {128}, reported

        # A colour by hue and saturation: Home Assistant sends it as xy in the light's gamut, and shows the xy it
        # reads back as hue and saturation.
        reported, stop = brightnesses_reported(hass, entity_id)
        await turn_on(hass, entity_id, hs_color=[240, 80], brightness=200, transition=1)
        state = await wait_for(hass, "the light blue at brightness 200", lambda: (
            s if (s := state_of(hass, entity_id)).attributes.get("color_mode") == "hs"
            and s.attributes.get("brightness") == 200 else None), show=lambda: state_of(hass, entity_id))
        hue, saturation = state.attributes["hs_color"]
        assert abs(hue - 240) <= 3 and abs(saturation - 80) <= 5, state.attributes
        brightness = (await landed(hass, lumend, "living-room.ceiling"))["state"]["brightness"]
        stop()
        assert reported and set(reported) == {200}, reported
        assert abs(brightness - (1 + (200 / 255 * 254 - 1) * 99 / 253)) <= 0.5

        await hass.services.async_call("light", "turn_off", {"entity_id": entity_id}, blocking=True)
        await wait_for(hass, "the light off", lambda: state_of(hass, entity_id).state == "off")
        assert (await landed(hass, lumend, "living-room.ceiling"))["state"]["isOn"] is False

    run_with_home_assistant(tmp_path, scenario)


@pytest.mark.lumend(args=HUE_ARGS)
def test_a_change_made_in_lumend_is_seen_by_home_assistant_at_its_next_poll(lumend, tmp_path, hue_numbers):
    reading = light_scope(lumend, "living-room.reading")

    async def scenario(hass):
        entry = await set_up_hue(hass, lumend)
        entity_id = entity_of(hass, entry, lumend, hue_numbers["living-room.reading"])
        assert state_of(hass, entity_id).state == "off"
        await hass.async_add_executor_job(lambda: lumend.set("isOn", True, in_scope=reading))
        await hass.async_add_executor_job(lambda: lumend.set("brightness", 100, in_scope=reading))
        # Home Assistant polls a v1 bridge every 5 s.
        await wait_for(hass, "the reading light on at full brightness", lambda: (
            (s := state_of(hass, entity_id)).state == "on" and s.attributes.get("brightness") == 255))
        # A light lumend makes unreachable becomes unavailable (Home Assistant's default for a v1 bridge).
        await hass.async_add_executor_job(lambda: lumend.call(
            "setReachable", {"light": "living-room.reading", "reachable": False}, in_scope=lumend.simulation()))
        await wait_for(hass, "the reading light unavailable",
                       lambda: state_of(hass, entity_id).state == "unavailable", timeout=40)

    run_with_home_assistant(tmp_path, scenario)


@pytest.mark.lumend(args=HUE_ARGS)
def test_activating_a_hue_scene_sets_its_lights_as_it_stored_them(lumend, tmp_path):
    async def scenario(hass):
        entry = await set_up_hue(hass, lumend)
        key = entry.data["api_key"]
        address = bridge_address(lumend)
        room = bridge_get(address, f"{key}/groups/1")
        entities = {number: entity_of(hass, entry, lumend, number) for number in room["lights"]}
        for entity_id in entities.values():
            await turn_on(hass, entity_id, brightness=77)
        await wait_for(hass, f"{room['name']} on at brightness 77", lambda: all(
            (s := state_of(hass, e)).state == "on" and s.attributes.get("brightness") == 77
            for e in entities.values()))
        # The Hue app makes a scene of the room's lights as they are; the bridge stores their states.
        created = bridge_send(address, "POST", f"{key}/scenes",
                              {"name": "Lumen Evening", "lights": room["lights"], "recycle": False})
        assert "success" in created[0], created
        stored = bridge_get(address, f"{key}/scenes/{created[0]['success']['id']}")["lightstates"]
        assert {number: (state["on"], state["bri"]) for number, state in stored.items()} == {
            number: (True, 77) for number in room["lights"]}
        await hass.services.async_call("light", "turn_off", {"entity_id": list(entities.values())}, blocking=True)
        await wait_for(hass, f"{room['name']} off", lambda: all(
            state_of(hass, e).state == "off" for e in entities.values()))
        # Home Assistant finds the scene by its name and its group's, and recalls it through the group.
        await hass.services.async_call(
            "hue", "hue_activate_scene", {"group_name": room["name"], "scene_name": "Lumen Evening"}, blocking=True)
        await wait_for(hass, f"{room['name']} back on at brightness 77", lambda: all(
            (s := state_of(hass, e)).state == "on" and s.attributes.get("brightness") == 77
            for e in entities.values()),
            show=lambda: [state_of(hass, e) for e in entities.values()])

    run_with_home_assistant(tmp_path, scenario)
