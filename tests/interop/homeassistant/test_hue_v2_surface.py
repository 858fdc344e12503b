"""Home Assistant's Hue integration on its v2 path, driven through its services as a user drives it, across what it
offers for a bridge with lights: each kind of light (colour, white ambiance, dimmable, on/off) with colours,
temperatures, transitions, flashes, effects and timed effects (sunrise, sunset); a room's and a zone's grouped light; scenes recalled with a
transition and through Hue's own `activate_scene`; the devices Home Assistant registers, their Zigbee connectivity
sensor, and lights, zones and scenes coming and going while it runs.

Each scenario checks what Home Assistant shows and lumend's truth (`device`, the command record, the `effect`
connection), and that neither Home Assistant's Hue integration nor aiohue logged a warning or an error about what
the bridge answered. Like test_hue_v2.py it runs on the pytest plugin's clock that runs itself, so fades and
Home Assistant's own waits take no real time.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Any, Awaitable, Callable, Iterator

import pytest

from conftest import bridge_send, landed, light_scope, run_with_home_assistant, state_of, wait_for
from test_hue_v2 import HUE_V2_ARGS, entities, set_up_hue_v2, v2

BRIDGE = "127.0.0.1:80"


@contextmanager
def hue_log() -> Iterator[list[logging.LogRecord]]:
    """Collects what Home Assistant's Hue integration and aiohue log at WARNING or above while it is open, and any
    error Home Assistant logs (a task's exception, say). Home Assistant's warnings about its own integrations' code
    (`homeassistant.helpers.frame`) are not about the bridge, and are left out."""
    records: list[logging.LogRecord] = []

    class Collector(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.name.startswith(("homeassistant.components.hue", "aiohue")) or (
                    record.name.startswith("homeassistant") and record.levelno >= logging.ERROR):
                records.append(record)

    collector = Collector(level=logging.WARNING)
    logging.getLogger().addHandler(collector)
    try:
        yield records
    finally:
        logging.getLogger().removeHandler(collector)


def assert_quiet(records: list[logging.LogRecord], expected: tuple[str, ...] = ()) -> None:
    """Fails if `records` hold anything but the lines `expected` (each a part of a message), each said once."""
    said = [f"{record.levelname} {record.name}: {record.getMessage()}" for record in records]
    unexpected = [line for line in said if not any(part in line for part in expected)]
    assert not unexpected, "Home Assistant logged about the bridge:\n" + "\n".join(unexpected)
    for part in expected:
        assert sum(part in line for line in said) == 1, f"Home Assistant said {part!r} not once: {said}"


def run_quietly(tmp_path, scenario: Callable[[Any], Awaitable[Any]], expected: tuple[str, ...] = ()) -> None:
    """Runs `scenario` on a Home Assistant of its own; fails if its Hue integration or aiohue logged a warning
    other than those `expected`."""
    with hue_log() as records:
        run_with_home_assistant(tmp_path, scenario)
    assert_quiet(records, expected)


def lights_by_room(key: str) -> dict[str, dict]:
    """The v2 light resources behind the bridge by `Room/Light` (a light's name alone may be another room's too)."""
    devices = {device["id"]: device for device in v2(key, "GET", "resource/device")}
    lights = {light["id"]: light for light in v2(key, "GET", "resource/light")}
    found = {}
    for room in v2(key, "GET", "resource/room"):
        for child in room["children"]:
            device = devices[child["rid"]]
            light = next(service["rid"] for service in device["services"] if service["rtype"] == "light")
            found[f"{room['metadata']['name']}/{device['metadata']['name']}"] = lights[light]
    return found


def grouped_light_of(key: str, kind: str, name: str) -> str:
    """The ID of the grouped light of the room or zone (`kind`) called `name`."""
    group = next(group for group in v2(key, "GET", f"resource/{kind}") if group["metadata"]["name"] == name)
    return next(service["rid"] for service in group["services"] if service["rtype"] == "grouped_light")


async def call(hass, service: str, data: dict, domain: str = "light") -> None:
    await hass.services.async_call(domain, service, data, blocking=True)


def last_command(lumend, light: str) -> dict:
    """The last command lumend's record holds for `light`."""
    record = lumend.call("commands", {"light": light}, in_scope=lumend.simulation())["commands"]
    assert record, f"no command to {light}"
    return record[-1]


async def breathes(hass, lumend, light: str, action: Callable[[], Awaitable[Any]]) -> None:
    """Runs `action` and waits until lumend's `light` breathes (its `effect` connection says `breathe`)."""
    scope = await hass.async_add_executor_job(lambda: light_scope(lumend, light))
    subscription = await hass.async_add_executor_job(lambda: lumend.subscribe("effect", in_scope=scope))
    try:
        await action()

        def breathed() -> bool:
            # Each change in turn (the current value first): the breath may be over by the time it is read.
            while subscription.next(10) != "breathe":
                pass
            return True

        assert await hass.async_add_executor_job(breathed)
    finally:
        await hass.async_add_executor_job(subscription.close)


def close(a: float | None, b: float, within: float) -> bool:
    return a is not None and abs(a - b) <= within


def unheard(api, key: str) -> list[str]:
    """What the bridge shows now of its lights and grouped lights that Home Assistant's copy (aiohue's, kept by
    the event stream alone after its first read) does not hold."""
    differences = []
    for light in v2(key, "GET", "resource/light"):
        held = api.lights[light["id"]]
        seen = {"on": held.on.on}
        told = {"on": light["on"]["on"]}
        if "dimming" in light:
            seen["brightness"], told["brightness"] = held.dimming.brightness, light["dimming"]["brightness"]
        if "color_temperature" in light:
            valid = light["color_temperature"]["mirek_valid"]
            seen["mirek_valid"], told["mirek_valid"] = held.color_temperature.mirek_valid, valid
            if valid:
                seen["mirek"], told["mirek"] = held.color_temperature.mirek, light["color_temperature"]["mirek"]
        if "color" in light:
            seen["xy"] = (held.color.xy.x, held.color.xy.y)
            told["xy"] = (light["color"]["xy"]["x"], light["color"]["xy"]["y"])
        if "effects" in light:
            seen["effect"], told["effect"] = held.effects.status.value, light["effects"]["status"]
        if "timed_effects" in light:
            seen["timed"], told["timed"] = held.timed_effects.status.value, light["timed_effects"]["status"]
        if seen != told:
            differences.append(f"light {light['metadata']['name']}: heard {seen}, bridge shows {told}")
    for group in v2(key, "GET", "resource/grouped_light"):
        held = api.groups.grouped_light[group["id"]]
        seen = (held.on.on, held.dimming.brightness if held.dimming else None)
        told = (group["on"]["on"], group["dimming"]["brightness"] if "dimming" in group else None)
        if seen != told:
            differences.append(f"grouped light {group['id_v1']}: heard {seen}, bridge shows {told}")
    return differences


async def in_step(hass, entry, key: str) -> None:
    """Waits until Home Assistant's copy of every light and grouped light is what the bridge shows."""
    api = hass.data["hue"][entry.entry_id].api
    await wait_for(hass, "Home Assistant to hear every light and grouped light as the bridge shows it",
                   lambda: not unheard(api, key), show=lambda: unheard(api, key))


@pytest.mark.lumend(args=HUE_V2_ARGS)
def test_home_assistant_drives_each_kind_of_light_as_a_user_does(lumend, tmp_path):
    async def scenario(hass):
        from homeassistant.components.light import ColorMode, LightEntityFeature
        from homeassistant.exceptions import HomeAssistantError

        entry = await set_up_hue_v2(hass, lumend)
        key = entry.data["api_key"]
        lights = await hass.async_add_executor_job(lambda: lights_by_room(key))
        found = await wait_for(hass, "an entity for every light", lambda: (
            e if set(light["id"] for light in lights.values()) <= set(e := entities(hass, entry, "light")) else None))
        ceiling = found[lights["Living Room/Ceiling"]["id"]]
        floor = found[lights["Living Room/Floor Lamp"]["id"]]
        reading = found[lights["Living Room/Reading Light"]["id"]]
        plug = found[lights["Kitchen/Coffee Machine Plug"]["id"]]

        # What each kind of light offers, as Home Assistant reads it from the light's features.
        shown = state_of(hass, ceiling).attributes
        assert set(shown["supported_color_modes"]) == {ColorMode.COLOR_TEMP, ColorMode.XY}, shown
        assert (shown["min_color_temp_kelvin"], shown["max_color_temp_kelvin"]) == (2000, 6535), shown
        # Its colour loop, and the timed effects of a light that takes a colour temperature.
        assert shown["effect_list"] == ["off", "prism", "sunrise", "sunset"], shown
        assert shown["supported_features"] == (
            LightEntityFeature.EFFECT | LightEntityFeature.FLASH | LightEntityFeature.TRANSITION), shown
        shown = state_of(hass, floor).attributes
        assert shown["supported_color_modes"] == [ColorMode.COLOR_TEMP], shown
        assert shown["effect_list"] == ["off", "sunrise", "sunset"], shown
        assert shown["supported_features"] == (
            LightEntityFeature.EFFECT | LightEntityFeature.FLASH | LightEntityFeature.TRANSITION), shown
        shown = state_of(hass, reading).attributes
        assert shown["supported_color_modes"] == [ColorMode.BRIGHTNESS], shown
        assert "effect_list" not in shown, shown
        assert shown["supported_features"] == LightEntityFeature.FLASH | LightEntityFeature.TRANSITION, shown
        # An on/off light breathes for the bridge's alert too, so Home Assistant offers it a flash.
        shown = state_of(hass, plug).attributes
        assert shown["supported_color_modes"] == [ColorMode.ONOFF], shown
        assert shown["supported_features"] == LightEntityFeature.FLASH, shown

        # A colour by hue and saturation, with a transition: Home Assistant sends it as xy.
        await call(hass, "turn_on", {"entity_id": ceiling, "hs_color": (120, 80), "transition": 1.5})
        truth = await landed(hass, lumend, "living-room.ceiling")
        assert last_command(lumend, "living-room.ceiling")["transitionMs"] == 1500
        color = truth["state"]["color"]
        await wait_for(hass, "the ceiling in that colour", lambda: (
            (s := state_of(hass, ceiling)).attributes.get("color_mode") == ColorMode.XY
            and close(s.attributes["xy_color"][0], color["x"], 0.001)
            and close(s.attributes["xy_color"][1], color["y"], 0.001)), show=lambda: state_of(hass, ceiling))
        assert color["y"] > 0.6, truth

        # A colour temperature on the colour light: Home Assistant shows it as one.
        await call(hass, "turn_on", {"entity_id": ceiling, "color_temp_kelvin": 4000})
        truth = await landed(hass, lumend, "living-room.ceiling")
        assert truth["state"]["colorTemperature"] == 250, truth
        await wait_for(hass, "the ceiling at 4000 K", lambda: (
            (s := state_of(hass, ceiling)).attributes.get("color_mode") == ColorMode.COLOR_TEMP
            and s.attributes.get("color_temp_kelvin") == 4000), show=lambda: state_of(hass, ceiling))

        # The effect the light lists, and off again.
        ceiling_scope = light_scope(lumend, "living-room.ceiling")
        await call(hass, "turn_on", {"entity_id": ceiling, "effect": "prism"})
        await wait_for(hass, "the ceiling looping its colours", lambda: (
            lumend.get("effect", in_scope=ceiling_scope) == "colorLoop"
            and state_of(hass, ceiling).attributes.get("effect") == "prism"), show=lambda: state_of(hass, ceiling))
        await call(hass, "turn_on", {"entity_id": ceiling, "effect": "off"})
        await wait_for(hass, "the ceiling's loop stopped", lambda: (
            lumend.get("effect", in_scope=ceiling_scope) == "none"
            and state_of(hass, ceiling).attributes.get("effect") == "off"), show=lambda: state_of(hass, ceiling))

        # An effect the light does not list (one of a newer bulb's) is refused, and changes nothing.
        before = await landed(hass, lumend, "living-room.ceiling")
        with pytest.raises(HomeAssistantError, match="Request failed"):
            await call(hass, "turn_on", {"entity_id": ceiling, "effect": "candle"})
        assert await landed(hass, lumend, "living-room.ceiling") == before

        # A sunrise with a transition: on at the dimmest, warmest white, then up to full brightness over it.
        await call(hass, "turn_off", {"entity_id": ceiling})
        await landed(hass, lumend, "living-room.ceiling")
        await call(hass, "turn_on", {"entity_id": ceiling, "effect": "sunrise", "transition": 2})
        sent = last_command(lumend, "living-room.ceiling")
        # One command to the light: its dawn is the light's own start.
        assert sent["change"] == {"isOn": True, "brightness": 100, "timedEffect": "sunrise"}, sent
        assert sent["transitionMs"] == 2000, sent
        truth = await landed(hass, lumend, "living-room.ceiling")
        assert truth["state"]["isOn"] and truth["state"]["brightness"] == 100, truth
        assert truth["state"]["colorTemperature"] == 500, truth
        await wait_for(hass, "the ceiling risen, its sunrise over", lambda: (
            (s := state_of(hass, ceiling)).attributes.get("effect") == "off" and s.attributes.get("brightness") == 255),
            show=lambda: state_of(hass, ceiling))

        # Without a transition Home Assistant asks for ten minutes; `off` stops the sunrise where it stands.
        await call(hass, "turn_off", {"entity_id": ceiling})
        await landed(hass, lumend, "living-room.ceiling")
        await call(hass, "turn_on", {"entity_id": ceiling, "effect": "sunrise"})
        assert last_command(lumend, "living-room.ceiling")["transitionMs"] == 600_000
        await wait_for(hass, "the ceiling rising in its sunrise", lambda: (
            state_of(hass, ceiling).attributes.get("effect") == "sunrise"
            and (truth := lumend.device("living-room.ceiling"))["fading"] == ["brightness"]
            and truth["state"]["brightness"] > 1), show=lambda: (state_of(hass, ceiling), lumend.device("living-room.ceiling")))
        await call(hass, "turn_on", {"entity_id": ceiling, "effect": "off"})
        truth = await landed(hass, lumend, "living-room.ceiling")
        assert truth["state"]["isOn"] and 1 < truth["state"]["brightness"] < 50, truth
        await wait_for(hass, "the ceiling's sunrise stopped", lambda: (
            state_of(hass, ceiling).attributes.get("effect") == "off"), show=lambda: state_of(hass, ceiling))
        assert lumend.device("living-room.ceiling")["state"] == truth["state"]

        # A sunset on the white ambiance light: down to off over the transition.
        await call(hass, "turn_on", {"entity_id": floor, "brightness": 200})
        await landed(hass, lumend, "living-room.floor-lamp")
        await call(hass, "turn_on", {"entity_id": floor, "effect": "sunset", "transition": 3})
        assert last_command(lumend, "living-room.floor-lamp")["change"] == {"isOn": False, "timedEffect": "sunset"}
        truth = await landed(hass, lumend, "living-room.floor-lamp")
        assert truth["state"]["isOn"] is False, truth
        await wait_for(hass, "the floor lamp set, its sunset over", lambda: (
            (s := state_of(hass, floor)).state == "off" and s.attributes.get("effect") is None),
            show=lambda: state_of(hass, floor))

        # A short flash identifies the light through its device, a long one is the light's breathe alert.
        await breathes(hass, lumend, "living-room.ceiling",
                       lambda: call(hass, "turn_on", {"entity_id": ceiling, "flash": "short"}))
        await breathes(hass, lumend, "living-room.ceiling",
                       lambda: call(hass, "turn_on", {"entity_id": ceiling, "flash": "long"}))
        await breathes(hass, lumend, "kitchen.kettle-plug",
                       lambda: call(hass, "turn_on", {"entity_id": plug, "flash": "long"}))
        await breathes(hass, lumend, "kitchen.kettle-plug",
                       lambda: call(hass, "turn_off", {"entity_id": plug, "flash": "short"}))

        # The white ambiance light (a Hue White Ambiance, 2,200–6,500 K as a bridge lists one) at its warmest:
        # Home Assistant brings 2,000 K to the warmest the light lists.
        shown = state_of(hass, floor).attributes
        assert (shown["min_color_temp_kelvin"], shown["max_color_temp_kelvin"]) == (2202, 6535), shown
        await call(hass, "turn_on", {"entity_id": floor, "color_temp_kelvin": 2000, "brightness": 64})
        truth = await landed(hass, lumend, "living-room.floor-lamp")
        assert truth["state"]["colorTemperature"] == 454 and close(truth["state"]["brightness"], 25.1, 0.1), truth

        # Off with a transition, then on with no brightness: Home Assistant sends the brightness it had.
        await call(hass, "turn_on", {"entity_id": reading, "brightness": 200})
        await landed(hass, lumend, "living-room.reading")
        # Home Assistant keeps the brightness it last heard of as it turns the light off.
        await wait_for(hass, "the reading light at 200", lambda: (
            state_of(hass, reading).attributes.get("brightness") == 200), show=lambda: state_of(hass, reading))
        await call(hass, "turn_off", {"entity_id": reading, "transition": 2})
        truth = await landed(hass, lumend, "living-room.reading")
        assert truth["state"]["isOn"] is False, truth
        assert last_command(lumend, "living-room.reading")["transitionMs"] == 2000
        await wait_for(hass, "the reading light off", lambda: state_of(hass, reading).state == "off")
        await call(hass, "turn_on", {"entity_id": reading})
        truth = await landed(hass, lumend, "living-room.reading")
        assert truth["state"]["isOn"] is True and close(truth["state"]["brightness"], 200 / 255 * 100, 0.1), truth
        await wait_for(hass, "the reading light back at its brightness", lambda: (
            (s := state_of(hass, reading)).state == "on" and s.attributes.get("brightness") == 200),
            show=lambda: state_of(hass, reading))

        # The plug switched by Home Assistant and over the socket alike.
        await call(hass, "turn_on", {"entity_id": plug})
        assert (await landed(hass, lumend, "kitchen.kettle-plug"))["state"]["isOn"] is True
        await wait_for(hass, "the plug on", lambda: state_of(hass, plug).state == "on")
        await hass.async_add_executor_job(
            lambda: lumend.set("isOn", False, in_scope=light_scope(lumend, "kitchen.kettle-plug")))
        await wait_for(hass, "the plug off", lambda: state_of(hass, plug).state == "off")
        await in_step(hass, entry, key)

    run_quietly(tmp_path, scenario)


@pytest.mark.lumend(args=HUE_V2_ARGS)
def test_home_assistant_drives_rooms_zones_and_scenes(lumend, tmp_path):
    async def scenario(hass):
        from homeassistant.components.light import ColorMode, LightEntityFeature
        from homeassistant.helpers import device_registry as dr, entity_registry as er

        entry = await set_up_hue_v2(hass, lumend)
        key = entry.data["api_key"]
        api = hass.data["hue"][entry.entry_id].api
        lights = await hass.async_add_executor_job(lambda: lights_by_room(key))
        living_room = await hass.async_add_executor_job(lambda: grouped_light_of(key, "room", "Living Room"))
        found = await wait_for(hass, "an entity for every light and room", lambda: (
            e if living_room in (e := entities(hass, entry, "light")) else None))
        room = found[living_room]
        members = {"Ceiling": "living-room.ceiling", "Floor Lamp": "living-room.floor-lamp",
                   "Reading Light": "living-room.reading"}
        member_entities = {found[lights[f"Living Room/{name}"]["id"]] for name in members}

        # The room's grouped light, enabled from the start, as Home Assistant shows it.
        assert er.async_get(hass).async_get(room).disabled_by is None
        shown = state_of(hass, room).attributes
        assert shown["is_hue_group"] is True and shown["hue_type"] == "room", shown
        assert shown["lights"] == set(members) and shown["entity_id"] == member_entities, shown
        assert set(shown["supported_color_modes"]) == {ColorMode.COLOR_TEMP, ColorMode.XY}, shown
        assert shown["supported_features"] == LightEntityFeature.FLASH | LightEntityFeature.TRANSITION, shown

        # One command to the room, with a transition, reaches each light as the light can take it.
        await call(hass, "turn_on", {"entity_id": room, "brightness": 128, "color_temp_kelvin": 2700,
                                     "transition": 1})
        for light in members.values():
            truth = await landed(hass, lumend, light)
            assert truth["state"]["isOn"] is True and close(truth["state"]["brightness"], 50.2, 0.3), truth
            if light != "living-room.reading":
                assert truth["state"]["colorTemperature"] == 370, truth
            assert last_command(lumend, light)["transitionMs"] == 1000
        await wait_for(hass, "the room on at 2700 K", lambda: (
            (s := state_of(hass, room)).state == "on" and s.attributes.get("color_mode") == ColorMode.COLOR_TEMP
            and s.attributes.get("color_temp_kelvin") in (2702, 2703)), show=lambda: state_of(hass, room))

        # The grouped light's brightness is its lights' that are on, as the bridge tells it.
        ceiling = found[lights["Living Room/Ceiling"]["id"]]
        await call(hass, "turn_on", {"entity_id": ceiling, "brightness": 204})
        await call(hass, "turn_off", {"entity_id": found[lights["Living Room/Reading Light"]["id"]]})
        mean = (await landed(hass, lumend, "living-room.ceiling"))["state"]["brightness"]
        mean = (mean + (await landed(hass, lumend, "living-room.floor-lamp"))["state"]["brightness"]) / 2

        def grouped_brightness() -> float | None:
            dimming = api.groups.grouped_light[living_room].dimming
            return dimming.brightness if dimming else None

        await wait_for(hass, "the room at the mean of its lights that are on", lambda: (
            close(grouped_brightness(), mean, 0.1)), show=grouped_brightness)
        told = (await hass.async_add_executor_job(lambda: v2(key, "GET", f"resource/grouped_light/{living_room}")))
        assert close(told[0]["dimming"]["brightness"], mean, 0.1), told

        # Off with a transition, and on again at the brightness Home Assistant had for the room.
        await call(hass, "turn_off", {"entity_id": room, "transition": 1})
        for light in members.values():
            assert (await landed(hass, lumend, light))["state"]["isOn"] is False
        await wait_for(hass, "the room off, at no brightness", lambda: (
            state_of(hass, room).state == "off" and grouped_brightness() == 0),
            show=lambda: (state_of(hass, room), grouped_brightness()))
        await call(hass, "turn_on", {"entity_id": room})
        for light in members.values():
            assert (await landed(hass, lumend, light))["state"]["isOn"] is True
        await wait_for(hass, "the room on", lambda: state_of(hass, room).state == "on")
        await in_step(hass, entry, key)

        # A short flash of a room identifies each of its lights, a long one is the room's breathe alert.
        await breathes(hass, lumend, "living-room.floor-lamp",
                       lambda: call(hass, "turn_on", {"entity_id": room, "flash": "short"}))
        await breathes(hass, lumend, "living-room.floor-lamp",
                       lambda: call(hass, "turn_on", {"entity_id": room, "flash": "long"}))

        # A zone made in the Hue app (over v1) while Home Assistant runs becomes a grouped light of its own.
        numbers = [lights[f"Living Room/{name}"]["id_v1"].rsplit("/", 1)[1] for name in ("Ceiling", "Floor Lamp")]
        made = await hass.async_add_executor_job(lambda: bridge_send(
            BRIDGE, "POST", f"{key}/groups", {"name": "Reading Corner", "type": "Zone", "lights": numbers,
                                             "class": "Reading"}))
        zone_number = made[0]["success"]["id"]
        zone_light = await hass.async_add_executor_job(lambda: grouped_light_of(key, "zone", "Reading Corner"))
        zone = (await wait_for(hass, "the zone's grouped light", lambda: (
            e if zone_light in (e := entities(hass, entry, "light")) else None)))[zone_light]
        await wait_for(hass, "the zone's lights", lambda: (
            state_of(hass, zone).attributes.get("lights") == {"Ceiling", "Floor Lamp"}),
            show=lambda: state_of(hass, zone))
        assert state_of(hass, zone).attributes["hue_type"] == "zone"
        await call(hass, "turn_on", {"entity_id": zone, "color_temp_kelvin": 3000})
        for light in ("living-room.ceiling", "living-room.floor-lamp"):
            assert (await landed(hass, lumend, light))["state"]["colorTemperature"] == 333
        assert (await landed(hass, lumend, "living-room.reading"))["state"].get("colorTemperature") is None

        # A scene of the zone: recalled with a transition, then through Hue's activate_scene.
        zone_id = next(z["id"] for z in await hass.async_add_executor_job(lambda: v2(key, "GET", "resource/zone")))
        floor_lamp = lights["Living Room/Floor Lamp"]["id"]
        ceiling_lamp = lights["Living Room/Ceiling"]["id"]
        body = {"metadata": {"name": "Corner Glow"}, "group": {"rid": zone_id, "rtype": "zone"},
                "actions": [{"target": {"rid": floor_lamp, "rtype": "light"},
                             "action": {"on": {"on": True}, "dimming": {"brightness": 20.0},
                                        "color_temperature": {"mirek": 400}}},
                            {"target": {"rid": ceiling_lamp, "rtype": "light"},
                             "action": {"on": {"on": True}, "dimming": {"brightness": 30.0},
                                        "color": {"xy": {"x": 0.5, "y": 0.4}}}}]}
        scene_id = (await hass.async_add_executor_job(lambda: v2(key, "POST", "resource/scene", body)))[0]["rid"]
        scene = (await wait_for(hass, "the scene's entity", lambda: (
            e if scene_id in (e := entities(hass, entry, "scene")) else None)))[scene_id]
        shown = state_of(hass, scene).attributes
        assert (shown["group_name"], shown["group_type"], shown["is_dynamic"]) == ("Reading Corner", "zone", False)
        await call(hass, "turn_on", {"entity_id": scene, "transition": 4}, domain="scene")
        truth = await landed(hass, lumend, "living-room.floor-lamp")
        assert truth["state"]["colorTemperature"] == 400 and close(truth["state"]["brightness"], 20, 0.3), truth
        assert last_command(lumend, "living-room.floor-lamp")["transitionMs"] == 4000
        await call(hass, "activate_scene", {"entity_id": scene, "dynamic": True, "speed": 70, "brightness": 128,
                                            "transition": 2}, domain="hue")
        truth = await landed(hass, lumend, "living-room.floor-lamp")
        assert close(truth["state"]["brightness"], 50.2, 0.3), truth
        assert last_command(lumend, "living-room.floor-lamp")["transitionMs"] == 2000
        await wait_for(hass, "the scene's speed", lambda: state_of(hass, scene).attributes.get("speed") == 0.7,
                       show=lambda: state_of(hass, scene))
        told = await hass.async_add_executor_job(lambda: v2(key, "GET", f"resource/scene/{scene_id}"))
        # Recalled with `dynamic: True`: the scene reports the mode Home Assistant asked for, and its colour light
        # plays the palette, which Home Assistant shows as the light's and its zone's dynamics.
        assert told[0]["status"]["active"] == "dynamic_palette", told
        await wait_for(hass, "the ceiling and its zone in the palette", lambda: (
            state_of(hass, found[ceiling_lamp]).attributes.get("dynamics") == "dynamic_palette"
            and state_of(hass, zone).attributes.get("dynamics") is True),
            show=lambda: (state_of(hass, found[ceiling_lamp]), state_of(hass, zone)))
        assert state_of(hass, found[floor_lamp]).attributes.get("dynamics") == "none"
        # The older service that finds a scene by its group's name and its own (deprecated, and says so).
        await call(hass, "turn_on", {"entity_id": found[floor_lamp], "brightness": 255})
        await landed(hass, lumend, "living-room.floor-lamp")
        await call(hass, "hue_activate_scene", {"group_name": "reading corner", "scene_name": "Corner Glow",
                                                "transition": 1}, domain="hue")
        truth = await landed(hass, lumend, "living-room.floor-lamp")
        assert close(truth["state"]["brightness"], 20, 0.3), truth
        assert last_command(lumend, "living-room.floor-lamp")["transitionMs"] == 1000

        # The scene deleted, then the zone: their entities and the zone's device go.
        await hass.async_add_executor_job(lambda: v2(key, "DELETE", f"resource/scene/{scene_id}"))
        await wait_for(hass, "the scene's entity gone", lambda: (
            scene_id not in entities(hass, entry, "scene") and hass.states.get(scene) is None))
        await hass.async_add_executor_job(lambda: bridge_send(BRIDGE, "DELETE", f"{key}/groups/{zone_number}", None))
        devices = dr.async_get(hass)
        await wait_for(hass, "the zone's device gone", lambda: (
            devices.async_get_device(identifiers={("hue", zone_id)}) is None
            and zone_light not in entities(hass, entry, "light")))

        # A room renamed in the Hue app renames its device, and so its grouped light, in Home Assistant.
        room_id = next(r["id"] for r in await hass.async_add_executor_job(lambda: v2(key, "GET", "resource/room"))
                       if r["metadata"]["name"] == "Living Room")
        number = (await hass.async_add_executor_job(lambda: v2(key, "GET", f"resource/room/{room_id}")))[0]["id_v1"]
        await hass.async_add_executor_job(lambda: bridge_send(BRIDGE, "PUT", f"{key}{number}", {"name": "Lounge"}))
        await wait_for(hass, "the room's device renamed", lambda: (
            devices.async_get_device(identifiers={("hue", room_id)}).name == "Lounge"))
        await in_step(hass, entry, key)

    run_quietly(tmp_path, scenario, expected=("Use of service_call 'hue_activate_scene' is deprecated",))


@pytest.mark.lumend(args=HUE_V2_ARGS)
def test_home_assistant_registers_devices_and_follows_their_connectivity(lumend, tmp_path):
    async def scenario(hass):
        from homeassistant.components.light import LightEntityFeature
        from homeassistant.helpers import device_registry as dr, entity_registry as er

        entry = await set_up_hue_v2(hass, lumend)
        key = entry.data["api_key"]
        api = hass.data["hue"][entry.entry_id].api
        lights = await hass.async_add_executor_job(lambda: lights_by_room(key))
        devices = dr.async_get(hass)
        hue_devices = {d["id"]: d for d in await hass.async_add_executor_job(lambda: v2(key, "GET", "resource/device"))}
        zigbee = {z["owner"]["rid"]: z for z in
                  await hass.async_add_executor_job(lambda: v2(key, "GET", "resource/zigbee_connectivity"))}

        # The bridge, and each light by its maker, model, room and Zigbee MAC, behind the bridge.
        bridge = next(d for d in hue_devices.values() if d["product_data"]["model_id"] == "BSB002")
        registered_bridge = devices.async_get_device(identifiers={("hue", bridge["id"])})
        assert "BSB002" in registered_bridge.model, registered_bridge
        assert registered_bridge.sw_version == bridge["product_data"]["software_version"]
        # The bridge's own Zigbee radio, as a bridge lists it: its MAC is one of the bridge device's connections,
        # beside the network MAC the bridge was set up by.
        assert ("mac", zigbee[bridge["id"]]["mac_address"]) in registered_bridge.connections, registered_bridge
        ceiling = lights["Living Room/Ceiling"]
        device = devices.async_get_device(identifiers={("hue", ceiling["owner"]["rid"])})
        assert (device.name, device.manufacturer, device.model) == (
            "Ceiling", "Signify Netherlands B.V.", "Hue White and Color Ambiance A19 (LCT015)"), device
        assert device.suggested_area == "Living Room" and device.via_device_id == registered_bridge.id, device
        assert device.connections == {("mac", zigbee[ceiling["owner"]["rid"]]["mac_address"])}, device

        # Signify's lights are certified, other makers' not: Home Assistant trusts a certified light's colour mode
        # and watches an uncertified one's availability itself.
        certified = {d.metadata.name: d.product_data.certified for d in api.devices if d.id != bridge["id"]}
        assert certified["Floor Lamp"] is True and certified["Shelf Strip"] is True, certified
        assert certified["Reading Light"] is False and certified["Porch"] is False, certified

        # The Zigbee connectivity sensor, disabled by default, enabled as a user does in the UI.
        reading = lights["Living Room/Reading Light"]
        reading_light = entities(hass, entry, "light")[reading["id"]]
        sensor_id = zigbee[reading["owner"]["rid"]]["id"]
        entity_registry = er.async_get(hass)
        sensor = entities(hass, entry, "sensor")[sensor_id]
        assert entity_registry.async_get(sensor).disabled_by is er.RegistryEntryDisabler.INTEGRATION
        entity_registry.async_update_entity(sensor, disabled_by=None)
        assert await hass.config_entries.async_reload(entry.entry_id)
        await hass.async_block_till_done()
        await wait_for(hass, "the sensor connected", lambda: (
            (s := hass.states.get(sensor)) is not None and s.state == "connected"),
            show=lambda: hass.states.get(sensor))
        assert state_of(hass, sensor).attributes["mac_address"] == zigbee[reading["owner"]["rid"]]["mac_address"]

        # The light out of reach, and back.
        simulation = lumend.simulation()
        lumend.call("setReachable", {"light": "living-room.reading", "reachable": False}, in_scope=simulation)
        await wait_for(hass, "the light unavailable", lambda: (
            state_of(hass, sensor).state == "connectivity_issue"
            and state_of(hass, reading_light).state == "unavailable"),
            show=lambda: (state_of(hass, sensor), state_of(hass, reading_light)), timeout=30)
        lumend.call("setReachable", {"light": "living-room.reading", "reachable": True}, in_scope=simulation)
        await wait_for(hass, "the light available again", lambda: (
            state_of(hass, sensor).state == "connected" and state_of(hass, reading_light).state != "unavailable"),
            show=lambda: (state_of(hass, sensor), state_of(hass, reading_light)), timeout=30)

        # A device the user tells Home Assistant to keep available (the integration's options) stays so out of reach.
        result = await hass.config_entries.options.async_init(entry.entry_id)
        result = await hass.config_entries.options.async_configure(
            result["flow_id"], {"ignore_availability": [reading["owner"]["rid"]]})
        await hass.async_block_till_done()
        await wait_for(hass, "the integration loaded again", lambda: (
            (s := hass.states.get(reading_light)) is not None and s.state != "unavailable"))
        lumend.call("setReachable", {"light": "living-room.reading", "reachable": False}, in_scope=simulation)
        await wait_for(hass, "the sensor telling the connectivity issue", lambda: (
            state_of(hass, sensor).state == "connectivity_issue"), timeout=30)
        assert state_of(hass, reading_light).state != "unavailable"
        lumend.call("setReachable", {"light": "living-room.reading", "reachable": True}, in_scope=simulation)
        await wait_for(hass, "the sensor connected again", lambda: state_of(hass, sensor).state == "connected",
                       timeout=30)

        # A light paired while Home Assistant runs gets an entity and a device, and joins its room's grouped
        # light; removed, it leaves them.
        lumend.call("addLight", {"room": "living-room", "light": {
            "id": "living-room.new", "name": "New Lamp", "kind": "color", "manufacturer": "Signify",
            "product": "Hue Go"}}, in_scope=simulation)
        new = await wait_for(hass, "the new light's entity", lambda: next(
            (entity for entity in entities(hass, entry, "light").values()
             if (s := hass.states.get(entity)) and s.attributes.get("friendly_name") == "New Lamp"), None))
        assert state_of(hass, new).attributes["effect_list"] == ["off", "prism", "sunrise", "sunset"]
        new_device = entity_registry.async_get(new).device_id
        assert devices.async_get(new_device).model == "Hue Go (LCT015)"
        room = entities(hass, entry, "light")[
            await hass.async_add_executor_job(lambda: grouped_light_of(key, "room", "Living Room"))]
        await wait_for(hass, "the room holding the new light", lambda: (
            "New Lamp" in state_of(hass, room).attributes["lights"]), show=lambda: state_of(hass, room))
        lumend.call("removeLight", {"light": "living-room.new"}, in_scope=simulation)
        await wait_for(hass, "the new light gone", lambda: (
            devices.async_get(new_device) is None and hass.states.get(new) is None))
        await wait_for(hass, "the room without it", lambda: (
            "New Lamp" not in state_of(hass, room).attributes["lights"]), show=lambda: state_of(hass, room))

        # A Hue smart plug lists no alert action, as a bridge lists one: Home Assistant offers it no flash, where
        # another maker's plug (the coffee machine's, above) has one.
        lumend.call("addLight", {"room": "living-room", "light": {
            "id": "living-room.hue-plug", "name": "Hue Plug", "kind": "onoff", "manufacturer": "Signify",
            "product": "Hue smart plug"}}, in_scope=simulation)
        hue_plug = await wait_for(hass, "the Hue plug's entity", lambda: next(
            (entity for entity in entities(hass, entry, "light").values()
             if (s := hass.states.get(entity)) and s.attributes.get("friendly_name") == "Hue Plug"), None))
        assert not state_of(hass, hue_plug).attributes["supported_features"] & LightEntityFeature.FLASH

    run_quietly(tmp_path, scenario)
