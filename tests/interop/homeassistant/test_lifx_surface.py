"""Home Assistant's LIFX integration driven through all it offers a user, against lumend's bulbs: the light's
services (colour every way Home Assistant takes it, transitions, `lifx.set_state`, the effects), its buttons
(identify, restart), its selects (infrared, theme), the HEV binary sensor and `lifx.set_hev_cycle_state`, on each
kind of bulb it treats apart (a colour bulb, a white one, a strip, a tile, a candle, a ceiling of 8×8 and one of
16×8, a Clean, a Night Vision).

Each scenario checks what Home Assistant shows and what lumend's bulb holds: lumend's record of the light, and what
the bulb itself answers over the LAN (`lifx_wire`, asked without Home Assistant), and that Home Assistant logged no
trouble with its bulbs and marked none unavailable. Home Assistant polls each bulb every 10 s; a state it shows
only from its next poll is waited for that long.

The single colour bulb is one-lifx-bulb.json's LIFX Mini; the other products are lifx-products.json's, each added
by its address as a user adds a bulb (a tile's first update takes Home Assistant 18 s: it asks for the tile's
pixels before it knows the tile's width, and asks again once the attempt has timed out).
"""

from __future__ import annotations

import asyncio
import struct
import time
from functools import partial
from typing import Any

import pytest

import lifx_wire as wire
from conftest import (
    LIFX_ARGS,
    LIFXTrouble,
    entity_shows,
    landed,
    run_with_home_assistant,
    state_of,
    wait_for,
)
from test_lifx import ONE_BULB, ONE_BULB_LIGHT, add_by_host, bulb_address

PRODUCTS = {"fixture": "lifx-products.json", "args": LIFX_ARGS}
# lifx-products.json's bulbs in the home's order, so each at the address after the one before.
STRIP, TILE, CLEAN, NIGHT_VISION, WHITE, CANDLE, CEILING, WIDE_CEILING = range(8)
PRODUCT_LIGHTS = ["den.strip", "den.tile", "porch.clean", "porch.night-vision", "porch.white", "porch.candle",
                  "porch.ceiling", "porch.wide-ceiling"]
SET_HEV_CYCLE_CONFIGURATION = 146


async def add_bulb(hass, index: int) -> dict[str, str]:
    """Adds the bulb at the `index`th address as a user does; its entities, by their unique ID's suffix (`light`
    for the light itself)."""
    from homeassistant.data_entry_flow import FlowResultType
    from homeassistant.helpers import entity_registry as er

    result = await add_by_host(hass, bulb_address(index))
    assert result["type"] == FlowResultType.CREATE_ENTRY, result
    entry = result["result"]
    entities = {}
    for item in er.async_entries_for_config_entry(er.async_get(hass), entry.entry_id):
        key = item.unique_id.split("_", 1)[1] if "_" in item.unique_id else "light"
        entities[key] = item.entity_id
    return entities


async def asked(hass, function, *arguments) -> Any:
    """What the bulb answers `function` (one of `lifx_wire`'s), asked off Home Assistant's loop."""
    return await hass.async_add_executor_job(function, *arguments)


async def call(hass, domain: str, service: str, entity_id: str, **data: Any) -> None:
    await hass.services.async_call(domain, service, {"entity_id": entity_id, **data}, blocking=True)


def hue_of(degrees: float) -> int:
    """A hue as Home Assistant sends it to a LIFX bulb."""
    return int(degrees / 360 * 65535)


def hs_is(state, hue: float, saturation: float) -> bool:
    """Whether Home Assistant shows the light at this hue and saturation (as LIFX's 16 bits carry them back)."""
    shown = state.attributes.get("hs_color")
    return shown is not None and abs(shown[0] - hue) < 0.1 and abs(shown[1] - saturation) < 0.1


def near_hue(hsbk, degrees: float, within: int = 400) -> bool:
    return abs(hsbk[0] - hue_of(degrees)) <= within and hsbk[1] > 60_000


async def samples(hass, address: str, seconds: float, every: float = 0.12) -> list[tuple[int, int, int, int]]:
    """The colour the bulb reports, asked every `every` s for `seconds` (well within its rate limit, beside what
    Home Assistant sends it)."""
    seen = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        seen.append((await asked(hass, wire.light_state, address))["hsbk"])
        await asyncio.sleep(every)
    return seen


@pytest.mark.lumend(**ONE_BULB)
def test_a_colour_bulb_through_every_light_service_its_effects_and_buttons(lumend, tmp_path):
    address, light = bulb_address(0), ONE_BULB_LIGHT

    async def scenario(hass):
        trouble.watch(hass)
        entities = await add_bulb(hass, 0)
        bulb = entities["light"]

        def shown():
            return state_of(hass, bulb)

        shows = partial(entity_shows, hass, bulb)

        # Colour every way Home Assistant takes it: each reaches the bulb as hue, saturation, brightness, kelvin.
        await call(hass, "light", "turn_on", bulb, rgb_color=[255, 0, 0], brightness=200)
        await shows("red at 200", lambda s: s.state == "on" and s.attributes["brightness"] == 200
                    and hs_is(s, 0, 100))
        assert (await asked(hass, wire.light_state, address))["hsbk"] == (0, 65535, 51400, 3500)
        truth = await landed(hass, lumend, light)
        assert truth["state"]["isOn"] and abs(truth["state"]["brightness"] - 78.4) < 0.1, truth

        await call(hass, "light", "turn_on", bulb, xy_color=[0.2, 0.5])
        state = await shows("the xy colour", lambda s: s.attributes["color_mode"] == "hs"
                            and s.attributes["hs_color"][0] > 100)
        x, y = state.attributes["xy_color"]
        assert abs(x - 0.2) < 0.01 and abs(y - 0.5) < 0.01, state.attributes
        assert (await asked(hass, wire.light_state, address))["hsbk"][0] == hue_of(state.attributes["hs_color"][0])

        await call(hass, "light", "turn_on", bulb, color_name="blue", brightness_pct=30)
        await shows("blue at 30 %", lambda s: hs_is(s, 240, 100)
                    and s.attributes["brightness"] == 76)

        await call(hass, "light", "turn_on", bulb, color_temp_kelvin=4000)
        await shows("4000 K", lambda s: s.attributes["color_mode"] == "color_temp"
                    and s.attributes["color_temp_kelvin"] == 4000)
        hue, saturation, brightness, kelvin = (await asked(hass, wire.light_state, address))["hsbk"]
        assert (saturation, brightness, kelvin) == (0, 76 * 257, 4000)
        assert (await landed(hass, lumend, light))["state"]["colorTemperature"] == 250

        # Off over 3 s: Home Assistant reads the power level part of the way, and the bulb goes off at the end.
        await call(hass, "light", "turn_off", bulb, transition=3)
        state = await shows("the fade off under way", lambda s: s.state == "on" and s.attributes["brightness"] < 76)
        assert 0 < (await asked(hass, wire.light_state, address))["power"] < 65535
        await shows("off once faded", lambda s: s.state == "off")
        assert (await landed(hass, lumend, light))["state"]["isOn"] is False

        # lifx.set_state sets a colour on a bulb that is off and leaves it off, and then switches it on alone.
        await call(hass, "lifx", "set_state", bulb, hs_color=[120, 100], power=False)
        reported = await asked(hass, wire.light_state, address)
        assert reported["power"] == 0 and reported["hsbk"][:2] == (hue_of(120), 65535), reported
        assert (await landed(hass, lumend, light))["state"]["isOn"] is False
        await call(hass, "lifx", "set_state", bulb, power=True)
        await shows("on, green", lambda s: s.state == "on" and hs_is(s, 120, 100))

        # A colour set while the light fades off changes the colour and the fade goes on: the light ends off, as a
        # bulb does (which is why turn_on sends a power-on first to a light that is fading off).
        await call(hass, "light", "turn_off", bulb, transition=3)
        await asyncio.sleep(1)
        await call(hass, "lifx", "set_state", bulb, hs_color=[300, 100])
        await shows("off with the fade's end", lambda s: s.state == "off")
        reported = await asked(hass, wire.light_state, address)
        assert reported["power"] == 0 and near_hue(reported["hsbk"], 300), reported
        assert (await landed(hass, lumend, light))["state"]["isOn"] is False
        await call(hass, "light", "turn_on", bulb, hs_color=[60, 100], brightness=128)
        await shows("on, yellow", lambda s: s.state == "on" and hs_is(s, 60, 100))
        before = (await asked(hass, wire.light_state, address))["hsbk"]

        # Each pulse draws its colour on the bulb, and the bulb comes back to where it was. A blink, a strobe and a
        # solid pulse show the colour itself for half a cycle or more; a breath passes through the colours between;
        # a ping shows its colour for some 40 ms a cycle, too short to catch by asking the bulb within its rate limit.
        for mode in ["blink", "breathe", "ping", "strobe", "solid"]:
            await call(hass, "lifx", "effect_pulse", bulb, mode=mode, hs_color=[240, 100], period=0.5, cycles=2)
            during = await samples(hass, address, 1.0)
            if mode in ("blink", "strobe", "solid"):
                assert any(near_hue(seen, 240, within=100) for seen in during), (mode, during)
            elif mode == "breathe":
                assert any(seen != before for seen in during), during
            await asyncio.sleep(0.8)
            assert (await asked(hass, wire.light_state, address))["hsbk"] == before, mode
        # Home Assistant may have read the bulb during a pulse; its next poll finds it back.
        await shows("yellow again", lambda s: hs_is(s, 60, 100))

        # A colour loop turns the hue round until it is stopped; the bulb then comes back too.
        await call(hass, "lifx", "effect_colorloop", bulb, period=1, transition=0.5)
        await shows("the colour loop", lambda s: s.attributes["effect"] == "effect_colorloop")
        looped = {seen[0] for seen in await samples(hass, address, 2.5, every=0.25)}
        assert len(looped) >= 3, looped
        await call(hass, "lifx", "effect_stop", bulb)
        await asyncio.sleep(0.5)
        assert (await asked(hass, wire.light_state, address))["hsbk"] == before
        await shows("no effect", lambda s: s.attributes["effect"] is None)
        # turn_on with an effect starts it with its defaults: a blink of a second.
        await call(hass, "light", "turn_on", bulb, effect="effect_pulse")
        await asyncio.sleep(1.5)
        assert (await asked(hass, wire.light_state, address))["hsbk"] == before

        # Identify on a light that is off: on, three flashes, off again.
        await call(hass, "light", "turn_off", bulb)
        await shows("off", lambda s: s.state == "off")
        await hass.services.async_call("button", "press", {"entity_id": entities["identify"]}, blocking=False)
        await wait_for(hass, "the bulb on to flash", lambda: lumend.device(light)["state"]["isOn"])
        flashes = await samples(hass, address, 2.5, every=0.15)
        assert {seen[2] for seen in flashes} != {before[2]}, "the brightness moves while it flashes"
        await wait_for(hass, "the bulb off again", lambda: not lumend.device(light)["state"]["isOn"], timeout=6)
        await shows("still off", lambda s: s.state == "off")

        # Restart: the bulb goes dark for a moment and comes back; Home Assistant rides it out.
        await call(hass, "light", "turn_on", bulb)
        await shows("on", lambda s: s.state == "on")
        await call(hass, "button", "press", entities["restart"])
        await wait_for(hass, "the bulb rebooting", lambda: lumend.device(light)["reachable"] is False, timeout=3)
        await wait_for(hass, "the bulb back", lambda: lumend.device(light)["reachable"] is True, timeout=5)
        await asyncio.sleep(11)  # a poll after it
        assert shown().state == "on"
        trouble.end()

    with LIFXTrouble() as trouble:
        run_with_home_assistant(tmp_path, scenario, timeout=170)
    assert trouble.problems == []


@pytest.mark.lumend(**PRODUCTS)
def test_a_strip_and_a_tile_take_zones_pixels_themes_and_firmware_effects(lumend, tmp_path):
    strip, tile = bulb_address(STRIP), bulb_address(TILE)

    async def scenario(hass):
        trouble.watch(hass)
        strip_entities = await add_bulb(hass, STRIP)
        tile_entities = await add_bulb(hass, TILE)
        lights = {STRIP: strip_entities["light"], TILE: tile_entities["light"]}

        def shows(index: int, what: str, condition, timeout: float = 15) -> Any:
            return entity_shows(hass, lights[index], what, condition, timeout)

        assert state_of(hass, lights[STRIP]).attributes["effect_list"] == [
            "effect_colorloop", "effect_pulse", "effect_move", "effect_stop"]
        assert state_of(hass, lights[TILE]).attributes["effect_list"] == [
            "effect_colorloop", "effect_flame", "effect_pulse", "effect_morph", "effect_stop"]

        # The strip: one colour along it, then zones of their own.
        orange = (hue_of(30), 65535, 65535, 3500)
        await call(hass, "light", "turn_on", lights[STRIP], hs_color=[30, 100], brightness=255)
        await shows(STRIP, "orange", lambda s: hs_is(s, 30, 100))
        assert await asked(hass, wire.zones, strip) == [orange] * 16
        await call(hass, "lifx", "set_state", lights[STRIP], hs_color=[200, 100], zones=[0, 1, 2, 3])
        zones = await asked(hass, wire.zones, strip)
        assert zones == [(hue_of(200), 65535, 65535, 3500)] * 4 + [orange] * 12, zones

        # Move, with a theme painted first; Home Assistant shows the effect the strip reports.
        await call(hass, "lifx", "effect_move", lights[STRIP], speed=2, direction="left", theme="autumn")
        effect = await asked(hass, wire.multizone_effect, strip)
        assert (effect["type"], effect["speed"], effect["direction"]) == (1, 2000, 1), effect
        assert len(set(await asked(hass, wire.zones, strip))) > 4, "the theme painted along the strip"
        await shows(STRIP, "the move effect", lambda s: s.attributes["effect"] == "effect_move")
        await call(hass, "lifx", "effect_stop", lights[STRIP])
        assert (await asked(hass, wire.multizone_effect, strip))["type"] == 0
        await shows(STRIP, "no effect", lambda s: s.attributes["effect"] is None)

        # A theme painted by the service and by the select.
        await call(hass, "lifx", "paint_theme", lights[STRIP], theme="intense", transition=1)
        await asyncio.sleep(1.2)
        painted = await asked(hass, wire.zones, strip)
        assert len({zone[0] for zone in painted}) > 4, painted
        await call(hass, "select", "select_option", strip_entities["theme"], option="halloween")
        await asyncio.sleep(0.5)
        halloween = await asked(hass, wire.zones, strip)
        assert halloween != painted
        await wait_for(hass, "the theme chosen", lambda: hass.states.get(strip_entities["theme"]).state == "halloween")

        # A brightness alone on the painted strip: every zone takes it and keeps its colour, and Home Assistant shows
        # it, as it reads the strip's Light.State once it has set the zones.
        await call(hass, "light", "turn_on", lights[STRIP], brightness=100)
        await shows(STRIP, "dimmed to 100", lambda s: s.attributes["brightness"] == 100, timeout=3)
        dimmed = await asked(hass, wire.zones, strip)
        assert [(h, s, k) for h, s, _, k in dimmed] == [(h, s, k) for h, s, _, k in halloween], dimmed
        assert {zone[2] for zone in dimmed} == {100 * 257}, dimmed
        assert abs((await landed(hass, lumend, "den.strip"))["state"]["brightness"] - 39.2) < 0.1
        halloween = dimmed

        # Off over 2 s: the power level falls, the zones stay as painted; on again, they are still there.
        await call(hass, "light", "turn_off", lights[STRIP], transition=2)
        await shows(STRIP, "the fade off under way", lambda s: s.state == "on" and s.attributes["brightness"] < 255)
        assert 0 < (await asked(hass, wire.light_state, strip))["power"] < 65535
        assert await asked(hass, wire.zones, strip) == halloween
        await shows(STRIP, "off", lambda s: s.state == "off")
        await call(hass, "light", "turn_on", lights[STRIP])
        await shows(STRIP, "on", lambda s: s.state == "on")
        assert await asked(hass, wire.zones, strip) == halloween

        # The tile: one colour over every pixel, then the firmware's flame and morph.
        await call(hass, "light", "turn_on", lights[TILE], hs_color=[90, 100])
        await shows(TILE, "green", lambda s: hs_is(s, 90, 100))
        chain = await asked(hass, wire.pixels, tile)
        assert len(chain) == 5 and {pixel for pixels in chain for pixel in pixels} == {
            (hue_of(90), 65535, 32768, 3500)}, chain[0][:2]
        await call(hass, "lifx", "effect_flame", lights[TILE], speed=4)
        effect = await asked(hass, wire.tile_effect, tile)
        assert (effect["type"], effect["speed"]) == (3, 4000), effect
        await shows(TILE, "the flame", lambda s: s.attributes["effect"] == "effect_flame")
        await call(hass, "lifx", "effect_morph", lights[TILE], theme="autumn", speed=5)
        effect = await asked(hass, wire.tile_effect, tile)
        assert (effect["type"], effect["speed"]) == (2, 5000) and len(effect["palette"]) >= 2, effect
        await shows(TILE, "the morph", lambda s: s.attributes["effect"] == "effect_morph")
        await call(hass, "lifx", "effect_stop", lights[TILE])
        assert (await asked(hass, wire.tile_effect, tile))["type"] == 0
        await shows(TILE, "no effect", lambda s: s.attributes["effect"] is None)

        # Themes on the tile: each tile's pixels drawn with set64.
        await call(hass, "lifx", "paint_theme", lights[TILE], theme="intense", transition=1)
        await asyncio.sleep(1.5)
        painted = await asked(hass, wire.pixels, tile)
        assert len({pixel for pixels in painted for pixel in pixels}) > 10
        await call(hass, "select", "select_option", tile_entities["theme"], option="dream")
        await asyncio.sleep(1.5)
        assert await asked(hass, wire.pixels, tile) != painted
        trouble.end()

    with LIFXTrouble() as trouble:
        run_with_home_assistant(tmp_path, scenario, timeout=170)
    assert trouble.problems == []


@pytest.mark.lumend(**PRODUCTS)
def test_a_candle_is_a_matrix_of_thirty_pixels_with_the_firmware_effects(lumend, tmp_path):
    candle = bulb_address(CANDLE)

    async def scenario(hass):
        trouble.watch(hass)
        entities = await add_bulb(hass, CANDLE)
        light = entities["light"]

        shows = partial(entity_shows, hass, light)

        # A matrix to Home Assistant, as a Tile: the same effects.
        assert state_of(hass, light).attributes["effect_list"] == [
            "effect_colorloop", "effect_flame", "effect_pulse", "effect_morph", "effect_stop"]
        await call(hass, "light", "turn_on", light, hs_color=[90, 100])
        await shows("green", lambda s: hs_is(s, 90, 100))
        (shown,) = await asked(hass, wire.pixels, candle, 1, 5)
        assert shown[:30] == [(hue_of(90), 65535, 32768, 3500)] * 30 and set(shown[30:]) == {(0, 0, 0, 0)}
        await call(hass, "lifx", "effect_flame", light, speed=4)
        effect = await asked(hass, wire.tile_effect, candle)
        assert (effect["type"], effect["speed"]) == (3, 4000), effect
        await shows("the flame", lambda s: s.attributes["effect"] == "effect_flame")
        await call(hass, "lifx", "effect_stop", light)
        assert (await asked(hass, wire.tile_effect, candle))["type"] == 0

        # A theme: aiolifx_themes draws the Candle's 30 colours but sends them eight to a row (its Set64's width is
        # always 8), padded to 64 with black by aiolifx. A Candle places them as the rectangle says: five of each
        # eight on the first four rows, the padding's black on the last two.
        await call(hass, "lifx", "paint_theme", light, theme="intense", transition=1)
        await asyncio.sleep(1.5)
        (painted,) = await asked(hass, wire.pixels, candle, 1, 5)
        assert len(set(painted[:20])) > 3 and all(pixel[2] > 0 for pixel in painted[:20]), painted[:20]
        assert all(pixel[2] == 0 for pixel in painted[20:30]), painted[20:30]
        trouble.end()

    with LIFXTrouble() as trouble:
        run_with_home_assistant(tmp_path, scenario, timeout=120)
    assert trouble.problems == []


@pytest.mark.lumend(**PRODUCTS)
def test_a_ceiling_is_a_matrix_of_sixty_four_pixels_with_the_sky_and_an_uplight_at_the_last(lumend, tmp_path):
    ceiling = bulb_address(CEILING)

    async def scenario(hass):
        from aiolifx.ceiling import Ceiling
        from aiolifx.connection import LIFXConnection

        trouble.watch(hass)
        entities = await add_bulb(hass, CEILING)
        light = entities["light"]

        shows = partial(entity_shows, hass, light)

        # Home Assistant's LIFXCeiling: a matrix whose effects add the sky.
        assert state_of(hass, light).attributes["effect_list"] == [
            "effect_colorloop", "effect_flame", "effect_pulse", "effect_morph", "effect_sky", "effect_stop"]
        green = (hue_of(90), 65535, 32768, 3500)
        await call(hass, "light", "turn_on", light, hs_color=[90, 100])
        await shows("green", lambda s: hs_is(s, 90, 100))
        assert await asked(hass, wire.pixels, ceiling, 1) == [[green] * 64]

        # The sky as lifx.effect_sky sends it; given no palette, Home Assistant 2025.4's service fails before it
        # sends anything (it builds the palette only from one given).
        await call(hass, "lifx", "effect_sky", light, speed=30, sky_type="Sunset", cloud_saturation_min=40,
                   cloud_saturation_max=200, palette=[[200, 100, 100, 6500]])
        effect = await asked(hass, wire.tile_effect, ceiling)
        assert (effect["type"], effect["speed"], effect["sky"], len(effect["palette"])) == (5, 30000, (1, 40, 200), 1)
        await shows("the sky", lambda s: s.attributes["effect"] == "effect_sky")
        await call(hass, "lifx", "effect_stop", light)
        assert (await asked(hass, wire.tile_effect, ceiling))["type"] == 0
        await shows("no effect", lambda s: s.attributes["effect"] is None)

        # aiolifx's Ceiling helper, on a connection of its own as Home Assistant opens one: the uplight is the
        # last of the tile's 64 colours, turned off alone, the downlight left lit.
        connection = LIFXConnection(ceiling, "00:00:00:00:00:00")
        await connection.async_setup()
        try:
            helper = Ceiling(connection.device)
            await helper.async_get64()
            assert (helper.uplight_color, helper.uplight_on, helper.downlight_on) == (green, True, True)
            await helper.async_turn_uplight_off()
            assert (helper.uplight_on, helper.downlight_on) == (False, True)
            warm = (hue_of(30), 13107, 19661, 2700)
            await helper.async_turn_uplight_on(warm)
            assert helper.uplight_color == warm
        finally:
            connection.async_stop()
        assert await asked(hass, wire.pixels, ceiling, 1) == [[green] * 63 + [warm]]
        await asyncio.sleep(11)  # a poll after it: the light still on and green to Home Assistant
        assert state_of(hass, light).state == "on" and hs_is(state_of(hass, light), 90, 100)
        trouble.end()

    with LIFXTrouble() as trouble:
        run_with_home_assistant(tmp_path, scenario, timeout=120)
    assert trouble.problems == []


@pytest.mark.lumend(**PRODUCTS)
def test_a_ceiling_13x26_is_a_ceiling_of_128_pixels_that_its_theme_and_the_8x8_helper_paint_in_part(lumend, tmp_path):
    ceiling = bulb_address(WIDE_CEILING)

    def tile() -> list[tuple[int, int, int, int]]:
        """The 13x26's 128 pixels, row by row: two State64s of four rows of 16."""
        return [pixel for y in (0, 4) for pixel in wire.pixels(ceiling, 1, 16, y)[0]]

    async def scenario(hass):
        from aiolifx.ceiling import Ceiling
        from aiolifx.connection import LIFXConnection

        trouble.watch(hass)
        entities = await add_bulb(hass, WIDE_CEILING)
        light = entities["light"]

        shows = partial(entity_shows, hass, light)

        # Home Assistant's LIFXCeiling, as the 8×8's: a matrix whose effects add the sky.
        assert state_of(hass, light).attributes["effect_list"] == [
            "effect_colorloop", "effect_flame", "effect_pulse", "effect_morph", "effect_sky", "effect_stop"]
        green = (hue_of(90), 65535, 32768, 3500)
        await call(hass, "light", "turn_on", light, hs_color=[90, 100])
        await shows("green", lambda s: hs_is(s, 90, 100))
        assert await asked(hass, tile) == [green] * 128

        # A theme: aiolifx_themes draws the tile's 128 colours but sends them in one Set64 eight wide, which aiolifx
        # cuts to 64: they fall on the left half, eight rows of eight, and the right half stays green.
        await call(hass, "lifx", "paint_theme", light, theme="intense", transition=1)
        await asyncio.sleep(1.5)
        painted = await asked(hass, tile)
        left = [pixel for index, pixel in enumerate(painted) if index % 16 < 8]
        assert len(set(left)) > 3 and all(pixel[2] > 0 for pixel in left), left
        assert [pixel for index, pixel in enumerate(painted) if index % 16 >= 8] == [green] * 64

        # aiolifx 1.1's Ceiling helper is written for the 8×8: on the 13x26 it takes the last of one Get64's
        # colours, 16 wide, for the uplight ((15, 3), green), and turns it off at (7, 7) eight wide, its padding's
        # black falling on the rest of the bottom row; the 13x26's uplight, (15, 7), keeps its colour.
        connection = LIFXConnection(ceiling, "00:00:00:00:00:00")
        await connection.async_setup()
        try:
            helper = Ceiling(connection.device)
            await helper.async_get64()
            assert (helper.uplight_color, helper.uplight_on, helper.downlight_on) == (green, True, True)
            await helper.async_turn_uplight_off()
        finally:
            connection.async_stop()
        expected = list(painted)
        expected[7 * 16 + 7:7 * 16 + 15] = [(hue_of(90), 65535, 0, 3500)] + [(0, 0, 0, 3500)] * 7
        assert await asked(hass, tile) == expected
        assert expected[127] == green
        await asyncio.sleep(11)  # a poll after it, reading the first four rows 16 wide: the light still on
        assert state_of(hass, light).state == "on"
        trouble.end()

    with LIFXTrouble() as trouble:
        run_with_home_assistant(tmp_path, scenario, timeout=120)
    assert trouble.problems == []


@pytest.mark.lumend(**PRODUCTS)
def test_a_clean_a_night_vision_and_a_white_bulb_take_what_each_has(lumend, tmp_path):
    clean, night_vision, white = (bulb_address(index) for index in (CLEAN, NIGHT_VISION, WHITE))

    async def scenario(hass):
        from homeassistant.exceptions import HomeAssistantError

        trouble.watch(hass)
        clean_entities = await add_bulb(hass, CLEAN)
        vision_entities = await add_bulb(hass, NIGHT_VISION)
        white_entities = await add_bulb(hass, WHITE)
        cycle_sensor = clean_entities["hev_cycle_state"]

        def sensor(entity_id: str) -> str:
            return state_of(hass, entity_id).state

        # The Clean: a cycle started from Home Assistant (of the length the LIFX app set, 3 s) shows as running,
        # then as over, with the last cycle's length and the power before it.
        assert sensor(cycle_sensor) == "off"
        await asked(hass, wire.ask, clean, SET_HEV_CYCLE_CONFIGURATION, struct.pack("<BI", 1, 3))
        await call(hass, "lifx", "set_hev_cycle_state", clean_entities["light"], power=True)
        await wait_for(hass, "the cycle running", lambda: sensor(cycle_sensor) == "on", timeout=3)
        running = await asked(hass, wire.hev_cycle, clean)
        assert running["duration"] == 3 and 0 < running["remaining"] <= 3, running
        await wait_for(hass, "the cycle over", lambda: sensor(cycle_sensor) == "off")
        assert await asked(hass, wire.hev_cycle, clean) == {"duration": 3, "remaining": 0, "last_power": False}
        assert await asked(hass, wire.last_hev_cycle_result, clean) == 0
        # Started and stopped.
        await call(hass, "lifx", "set_hev_cycle_state", clean_entities["light"], power=True)
        await wait_for(hass, "the cycle running", lambda: sensor(cycle_sensor) == "on", timeout=3)
        await call(hass, "lifx", "set_hev_cycle_state", clean_entities["light"], power=False)
        await wait_for(hass, "the cycle stopped", lambda: sensor(cycle_sensor) == "off", timeout=3)
        assert await asked(hass, wire.last_hev_cycle_result, clean) == 4
        with pytest.raises(HomeAssistantError):
            await call(hass, "lifx", "set_hev_cycle_state", vision_entities["light"], power=True)

        # The Night Vision: its infrared level from the select, and from set_state's older attribute.
        select = vision_entities["infrared_brightness"]
        for option, level in [("25%", 16383), ("100%", 65535), ("Disabled", 0), ("50%", 32767)]:
            await call(hass, "select", "select_option", select, option=option)
            assert await asked(hass, wire.infrared, night_vision) == level, option
        await wait_for(hass, "50 % at the next poll", lambda: sensor(select) == "50%")
        await call(hass, "lifx", "set_state", vision_entities["light"], infrared=255)
        assert await asked(hass, wire.infrared, night_vision) == 65535
        await wait_for(hass, "100 % at the next poll", lambda: sensor(select) == "100%")

        # The white bulb: brightness alone; a pulse toggles its brightness and comes back.
        bulb = white_entities["light"]
        assert state_of(hass, bulb).attributes["supported_color_modes"] == ["brightness"]
        await call(hass, "light", "turn_on", bulb, brightness=100)
        await wait_for(hass, "on at 100", lambda: state_of(hass, bulb).attributes.get("brightness") == 100)
        assert abs((await landed(hass, lumend, "porch.white"))["state"]["brightness"] - 39.2) < 0.1
        before = (await asked(hass, wire.light_state, white))["hsbk"]
        await call(hass, "lifx", "effect_pulse", bulb, mode="breathe", period=1)
        during = await samples(hass, white, 0.9)
        assert max(seen[2] for seen in during) > 50_000, during
        await asyncio.sleep(0.8)
        assert (await asked(hass, wire.light_state, white))["hsbk"] == before

        # A bulb that cannot be reached: Home Assistant's change times out (15 s) and says so; back, it is driven
        # again, and its entities never went unavailable (only a poll failing for 90 s does that).
        await hass.async_add_executor_job(lambda: lumend.call(
            "setReachable", {"light": "porch.white", "reachable": False}, in_scope=lumend.simulation()))
        with pytest.raises(HomeAssistantError, match="Timeout"):
            await call(hass, "light", "turn_off", bulb)
        await hass.async_add_executor_job(lambda: lumend.call(
            "setReachable", {"light": "porch.white", "reachable": True}, in_scope=lumend.simulation()))
        await call(hass, "light", "turn_off", bulb)
        await wait_for(hass, "off", lambda: state_of(hass, bulb).state == "off")
        trouble.end()

    with LIFXTrouble(expected=("'infrared' attribute of 'lifx.set_state' is deprecated",)) as trouble:
        run_with_home_assistant(tmp_path, scenario, timeout=170)
    assert trouble.problems == []
