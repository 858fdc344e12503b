"""Home Assistant's LIFX integration (aiolifx underneath) against lumend's LIFX bulbs, set up through its config
flow as a user does: by a bulb's address, or by picking a bulb it discovered by broadcast.

lumend gives each LIFX bulb of the demo home its own loopback address, counting up from the one `--lifx` names
(127.0.0.10, 127.0.0.11, 127.0.0.12), all on port 56700, which Home Assistant's flow always uses.

The tests of one bulb use a home with a single LIFX bulb (one-lifx-bulb.json), a LIFX Mini: the demo home's
first bulb is a strip.
"""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest

from conftest import (
    LIFX_ARGS,
    LIFX_BULBS,
    LIFX_FIRST_ADDRESS,
    light_scope,
    landed,
    run_with_home_assistant,
    state_of,
    wait_for,
)

# A home with one LIFX bulb, at the given address.
ONE_BULB = {"fixture": "one-lifx-bulb.json", "args": LIFX_ARGS}
ONE_BULB_LABEL, ONE_BULB_LIGHT = "Bedside", "bedroom.bedside"


def bulb_address(index: int) -> str:
    return str(ipaddress.IPv4Address(LIFX_FIRST_ADDRESS) + index)


async def add_by_host(hass, host: str) -> Any:
    """Runs Home Assistant's LIFX flow with `host` typed in; returns the flow's last result."""
    from homeassistant.config_entries import SOURCE_USER
    from homeassistant.data_entry_flow import FlowResultType

    flow = hass.config_entries.flow
    result = await flow.async_init("lifx", context={"source": SOURCE_USER})
    assert (result["type"], result["step_id"]) == (FlowResultType.FORM, "user"), result
    result = await flow.async_configure(result["flow_id"], {"host": host})
    await hass.async_block_till_done()
    return result


def lifx_entities(hass, entry) -> dict[str, str]:
    """The entities of a LIFX config entry, by domain (one each of light and sensor here)."""
    from homeassistant.helpers import entity_registry as er

    registry = er.async_get(hass)
    return {item.domain: item.entity_id for item in er.async_entries_for_config_entry(registry, entry.entry_id)
            if item.domain in ("light", "sensor")}


async def add_every_bulb_by_address(hass) -> list:
    """Adds each bulb of the demo home by its address; returns the config entries, in the home's order."""
    from homeassistant.config_entries import ConfigEntryState
    from homeassistant.data_entry_flow import FlowResultType

    entries = []
    for index, (label, _) in enumerate(LIFX_BULBS):
        result = await add_by_host(hass, bulb_address(index))
        assert result["type"] == FlowResultType.CREATE_ENTRY, (bulb_address(index), result)
        entry = result["result"]
        assert (entry.title, entry.data["host"]) == (label, bulb_address(index))
        entries.append(entry)
    assert all(entry.state is ConfigEntryState.LOADED for entry in entries)
    assert len({entry.unique_id for entry in entries}) == len(LIFX_BULBS)
    for entry, (label, _) in zip(entries, LIFX_BULBS):
        assert state_of(hass, lifx_entities(hass, entry)["light"]).attributes["friendly_name"] == label
    return entries


@pytest.mark.lumend(args=LIFX_ARGS)
def test_each_bulb_added_by_its_address_is_its_own_entry_and_switches_its_own_bulb(lumend, tmp_path):
    async def scenario(hass):
        entries = await add_every_bulb_by_address(hass)
        # The demo home's LIFX bulbs start off; each one switched on is that bulb alone.
        for index, (entry, (label, light)) in enumerate(zip(entries, LIFX_BULBS)):
            entity_id = lifx_entities(hass, entry)["light"]
            await hass.services.async_call("light", "turn_on", {"entity_id": entity_id}, blocking=True)
            await wait_for(hass, f"{label} on", lambda: state_of(hass, entity_id).state == "on",
                           show=lambda: state_of(hass, entity_id))
            records = [await landed(hass, lumend, other) for _, other in LIFX_BULBS]
            assert [record["state"]["isOn"] for record in records] == [n <= index for n in range(len(LIFX_BULBS))]

    run_with_home_assistant(tmp_path, scenario)


@pytest.mark.xfail(strict=True, reason=(
    "the TV Lightstrip is a LIFX Z 2 on firmware 3.90, which Home Assistant drives as an extended multizone "
    "strip: for a colour or brightness it sends SetExtendedColorZones (510: duration, apply 1, index 0, "
    "colors_count 16, then 82 HSBK, every one of the 16 the new colour) and reads Light.State (107) back; lumend "
    "acknowledges the message but changes neither the zones (GetExtendedColorZones answers the old ones) nor the "
    "light, where lifx.md says it is taken as SetColorZones is, one colour along every zone being a change to the "
    "light"))
@pytest.mark.lumend(args=LIFX_ARGS)
def test_each_bulb_added_by_its_address_takes_its_own_colour(lumend, tmp_path):
    async def scenario(hass):
        entries = await add_every_bulb_by_address(hass)
        hues = [30, 150, 270]
        for entry, hue in zip(entries, hues):
            await hass.services.async_call("light", "turn_on", {
                "entity_id": lifx_entities(hass, entry)["light"], "hs_color": [hue, 100], "brightness": 255},
                blocking=True)
        for entry, (label, light), hue in zip(entries, LIFX_BULBS, hues):
            entity_id = lifx_entities(hass, entry)["light"]
            await wait_for(hass, f"{label} on at hue {hue}, full brightness", lambda: (
                (s := state_of(hass, entity_id)).state == "on" and s.attributes.get("brightness") == 255
                and abs(s.attributes["hs_color"][0] - hue) <= 1), show=lambda: state_of(hass, entity_id))
            truth = await landed(hass, lumend, light)
            assert truth["state"]["isOn"] is True and truth["state"]["brightness"] == 100, (label, truth)

    run_with_home_assistant(tmp_path, scenario)


@pytest.mark.lumend(args=LIFX_ARGS)
def test_discovery_offers_every_bulb_at_its_own_address(lumend, tmp_path):
    async def scenario(hass):
        from homeassistant.config_entries import SOURCE_USER
        from homeassistant.data_entry_flow import FlowResultType

        flow = hass.config_entries.flow
        result = await flow.async_init("lifx", context={"source": SOURCE_USER})
        # No host typed in: Home Assistant broadcasts for bulbs (8.5 s) and offers the ones it found.
        result = await flow.async_configure(result["flow_id"], {"host": ""})
        assert (result["type"], result.get("step_id")) == (FlowResultType.FORM, "pick_device"), result
        offered = result["data_schema"].schema["device"].container
        addresses = sorted(choice.split(" (")[1].rstrip(")") for choice in offered.values())
        assert addresses == [bulb_address(index) for index in range(len(LIFX_BULBS))], offered
        # Picking the first makes its entry.
        serial = next(key for key, choice in offered.items() if choice.endswith(f"({bulb_address(0)})"))
        result = await flow.async_configure(result["flow_id"], {"device": serial})
        assert result["type"] == FlowResultType.CREATE_ENTRY, result
        assert result["title"] == LIFX_BULBS[0][0]

    run_with_home_assistant(tmp_path, scenario)


@pytest.mark.lumend(**ONE_BULB)
def test_the_bulb_at_the_given_address_is_set_up_and_driven(lumend, tmp_path):
    async def scenario(hass):
        from homeassistant.config_entries import ConfigEntryState
        from homeassistant.data_entry_flow import FlowResultType

        result = await add_by_host(hass, bulb_address(0))
        assert result["type"] == FlowResultType.CREATE_ENTRY, result
        entry = result["result"]
        assert entry.state is ConfigEntryState.LOADED
        label, light = ONE_BULB_LABEL, ONE_BULB_LIGHT
        assert (entry.title, entry.data["host"]) == (label, bulb_address(0))
        entity_id = lifx_entities(hass, entry)["light"]
        assert state_of(hass, entity_id).state == "off"

        await hass.services.async_call("light", "turn_on", {
            "entity_id": entity_id, "brightness": 128, "color_temp_kelvin": 2700, "transition": 0.5}, blocking=True)
        state = await wait_for(hass, f"{label} on at half brightness, 2700 K", lambda: (
            s if (s := state_of(hass, entity_id)).state == "on" and s.attributes.get("brightness") == 128
            else None), show=lambda: state_of(hass, entity_id))
        assert abs(state.attributes["color_temp_kelvin"] - 2700) <= 30, state.attributes
        truth = await landed(hass, lumend, light)
        assert truth["state"]["isOn"] is True
        assert abs(truth["state"]["brightness"] - 50.2) <= 0.5, truth

        # A colour by hue and saturation, which LIFX carries as they are.
        await hass.services.async_call("light", "turn_on", {
            "entity_id": entity_id, "hs_color": [200, 60]}, blocking=True)
        state = await wait_for(hass, f"{label} at hue 200, saturation 60", lambda: (
            s if (s := state_of(hass, entity_id)).attributes.get("color_mode") == "hs" else None),
            show=lambda: state_of(hass, entity_id))
        hue, saturation = state.attributes["hs_color"]
        assert abs(hue - 200) <= 1 and abs(saturation - 60) <= 1, state.attributes
        assert state.attributes["brightness"] == 128

        # A change made in lumend is seen at Home Assistant's next poll (every 10 s).
        await hass.async_add_executor_job(lambda: lumend.set("isOn", False, in_scope=light_scope(lumend, light)))
        await wait_for(hass, f"{label} off", lambda: state_of(hass, entity_id).state == "off",
                       show=lambda: state_of(hass, entity_id))

    run_with_home_assistant(tmp_path, scenario)


@pytest.mark.lumend(**ONE_BULB)
def test_the_signal_strength_sensor_stays_available(lumend, tmp_path):
    async def scenario(hass):
        from homeassistant.helpers import entity_registry as er

        result = await add_by_host(hass, bulb_address(0))
        entry = result["result"]
        entities = lifx_entities(hass, entry)
        sensor = entities["sensor"]
        # The sensor is off by default; the user turns it on, and Home Assistant reloads the entry.
        er.async_get(hass).async_update_entity(sensor, disabled_by=None)
        assert await hass.config_entries.async_reload(entry.entry_id)
        await hass.async_block_till_done()
        # The first poll with the sensor on is 10 s after the reload's.
        state = await wait_for(hass, "a signal strength", lambda: (
            s if (s := hass.states.get(sensor)) and s.state not in ("unknown", "unavailable") else None),
            show=lambda: hass.states.get(sensor), timeout=20)
        assert float(state.state) < 0, state  # dBm
        # It stays so over the next poll, and so does the light. (Home Assistant updates the time a state was last
        # reported in the State object it keeps, so the time is copied.)
        reported = state.last_reported
        await wait_for(hass, "the next poll", lambda: hass.states.get(sensor).last_reported > reported)
        assert hass.states.get(sensor).state not in ("unknown", "unavailable")
        assert state_of(hass, entities["light"]).state != "unavailable"

    run_with_home_assistant(tmp_path, scenario)
