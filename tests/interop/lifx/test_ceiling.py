"""A colour light named a Ceiling, the LIFX Ceiling (176, the US 8×8 one): a matrix of one 8×8 tile without a chain,
whose last pixel is the uplight, driven by lifx-async, aiolifx and photons as each drives a real one; and one named
a Ceiling 13x26, the LIFX Ceiling 13x26 (201): one tile 16 wide and 8 high, 128 pixels, its uplight the last, (15, 7).

lifx-async makes it a `CeilingLight` (the uplight at the cell its products list gives, (7, 7): pixel 63) and sets
the uplight and the downlight (the other 63 pixels) each with a Set64 of the whole tile; aiolifx reads the uplight
as the last of one Get64's colours and sets it alone with a Set64 of one colour at (7, 7), as its `Ceiling` helper
does (aiolifx 1.1, which Home Assistant's venv has; 1.2 dropped the helper); photons knows no Ceiling.

A message carries 64 colours, so the clients read and paint the 13x26 four rows at a time: lifx-async reads it with
two Get64s 16 wide (y 0 and 4) and paints it with two Set64s into frame buffer 1 and a CopyFrameBuffer of the whole
tile to 0 (its `set_matrix_colors`, through which its `CeilingLight` sets the uplight and downlight); aiolifx 1.2
reads it as lifx-async does, placing each State64 at its row; photons knows neither Ceiling.

The home's bulb takes 200 messages a second rather than the LIFX family's 20, as the Candle's: these tests are about
the matrix, not the rate limit.
"""

import asyncio

from aiolifx.products import features_map
import pytest

from conftest import LIFX_ARGS, drive
from test_aiolifx import answer, discovered
from test_photons import PHOTONS_ERROR, run_photons

HOME = "homes/ceiling.json"
LABEL = "Lounge Ceiling"
CEILING = 176  # LIFX Ceiling (US)
UPLIGHT = 63
# The cells lifx-async lists without an LED, less the uplight's: it paints them dark itself.
CORNERS = {0, 1, 6, 7, 56, 57, 62}

WIDE_HOME = "homes/wide-ceiling.json"
WIDE_LABEL = "Hall Ceiling"
WIDE_CEILING = 201  # LIFX Ceiling 13x26 (US)
WIDE_UPLIGHT = 127  # (15, 7)
WIDE_CORNERS = {0, 1, 14, 15, 112, 113, 126}


async def lifx_async_ceiling(label=LABEL):
    from lifx import discover

    async for device in discover(timeout=2.0):
        if await device.get_label() == label:
            return device
    raise AssertionError("no Ceiling found")


@pytest.mark.lumend(fixture=HOME, args=LIFX_ARGS)
def test_lifx_async_drives_the_ceilings_uplight_and_downlight_on_its_one_tile(lumend):
    from lifx.color import HSBK
    from lifx.devices import CeilingLight
    from lifx.theme import Theme

    red = HSBK(hue=0, saturation=1.0, brightness=1.0, kelvin=3500)
    blue = HSBK(hue=240, saturation=1.0, brightness=0.5, kelvin=3500)
    warm = HSBK(hue=30, saturation=0.2, brightness=0.3, kelvin=2700)

    async def run():
        found = await lifx_async_ceiling()
        result = {"ceiling": isinstance(found, CeilingLight)}
        async with found as ceiling:
            capabilities = ceiling.capabilities
            result["capabilities"] = (capabilities.pid, capabilities.has_matrix, capabilities.has_chain)
            result["kelvin"] = (capabilities.temperature_range.min, capabilities.temperature_range.max)
            chain = await ceiling.get_device_chain()
            result["chain"] = [(t.user_x, t.user_y, t.width, t.height, t.device_version_product) for t in chain]
            result["uplight zone"] = ceiling.uplight_zone
            await ceiling.set_downlight_colors(red)
            await ceiling.set_uplight_color(warm)
            result["uplight"] = await ceiling.get_uplight_color()
            result["downlight"] = await ceiling.get_downlight_colors()
            await ceiling.turn_uplight_off()
            await ceiling.refresh_state()
            result["uplight after off"] = await ceiling.get_uplight_color()
            result["on"] = (ceiling.uplight_is_on, ceiling.downlight_is_on)
            # A theme: lifx-async paints the corners' cells it lists without an LED dark, not the uplight.
            await ceiling.apply_theme(Theme([red, blue]))
            result["themed"] = (await ceiling.get_all_tile_colors())[0]
            result["sky"] = await ceiling.supports_sky_effect()
        return result

    result = drive(lumend, lambda: asyncio.run(run()))
    assert result["ceiling"], "a CeilingLight"
    assert result["capabilities"] == (CEILING, True, False)
    assert result["kelvin"] == (1500, 9000), "the products list's range before firmware 4.148"
    assert result["chain"] == [(0.0, 0.0, 8, 8, CEILING)]
    assert result["uplight zone"] == UPLIGHT
    uplight = result["uplight"]
    assert (round(uplight.hue), round(uplight.saturation, 2), round(uplight.brightness, 2), uplight.kelvin) == (
        30, 0.2, 0.3, 2700)
    downlight = result["downlight"]
    assert len(downlight) == 63 and all(color.hue == 0 and color.brightness == 1.0 for color in downlight)
    off = result["uplight after off"]
    assert off.brightness == 0 and off.kelvin == 2700, "dark, its colour kept"
    assert result["on"] == (False, True)
    themed = result["themed"]
    assert len(themed) == 64 and all(themed[index].brightness == 0 for index in CORNERS), themed
    assert all(color.brightness > 0 for index, color in enumerate(themed) if index not in CORNERS)
    assert result["sky"] is False, "lifx-async offers the sky from firmware 4, past Lumen's 3.90"


@pytest.mark.lumend(fixture=HOME, args=LIFX_ARGS)
def test_aiolifx_reads_and_sets_the_uplight_as_its_ceiling_helper_does_and_starts_the_sky(lumend):
    red, warm = (0, 65535, 65535, 3500), (5461, 13107, 19661, 2700)

    async def run():
        bulbs, discovery = await discovered(1)
        (ceiling,) = bulbs
        await answer(ceiling.get_version)
        features = features_map[ceiling.product]
        result = {"features": (ceiling.product, features["matrix"], features["chain"])}
        await answer(ceiling.get_device_chain)
        result["chain"] = (ceiling.tile_devices_count, ceiling.tile_device_width, ceiling.tile_devices[0]["height"])
        await answer(ceiling.set64, colors=[red] * 63 + [warm])
        await answer(ceiling.get64)
        result["painted"] = list(ceiling.chain[0])
        # The helper's uplight off: one colour at (7, 7), eight wide; aiolifx pads it to 64.
        hue, saturation, _, kelvin = ceiling.chain[0][UPLIGHT]
        await answer(ceiling.set64, x=7, y=7, width=8, colors=[(hue, saturation, 0, kelvin)])
        await answer(ceiling.get64)
        result["uplight off"] = list(ceiling.chain[0])
        await answer(ceiling.set_tile_effect, effect="SKY", speed=50, sky_type="CLOUDS", cloud_saturation_min=50,
                     cloud_saturation_max=180, palette=[(43690, 65535, 65535, 6500)])
        await answer(ceiling.get_tile_effect)
        result["effect"] = dict(ceiling.effect)
        discovery.cleanup()
        return result

    result = drive(lumend, lambda: asyncio.run(run()))
    assert result["features"] == (CEILING, True, False)
    assert result["chain"] == (1, 8, 8)
    assert result["painted"] == [red] * 63 + [warm]
    assert result["uplight off"] == [red] * 63 + [(5461, 13107, 0, 2700)], "the downlight untouched"
    effect = result["effect"]
    assert {key: effect[key] for key in ("effect", "speed", "sky_type", "cloud_saturation_min",
                                         "cloud_saturation_max")} == {
        "effect": "SKY", "speed": 50.0, "sky_type": "CLOUDS", "cloud_saturation_min": 50,
        "cloud_saturation_max": 180}, effect
    assert effect["palette"][0] == (43690, 65535, 65535, 6500), effect


@pytest.mark.lumend(fixture=HOME, args=LIFX_ARGS)
def test_photons_knows_no_ceiling_but_reads_its_pixels(lumend):
    if PHOTONS_ERROR:
        pytest.skip(f"photons (lifx-photons-core) cannot run here: {PHOTONS_ERROR}")
    from photons_messages import TileMessages

    async def program(sender):
        from test_photons import by_label

        serial, _ = (await by_label(sender))[LABEL]
        gathered = {}
        async for _, name, info in sender.gatherer.gather(sender.make_plans("capability"), [serial]):
            gathered[name] = info
        colors = None
        async for pkt in sender(TileMessages.Get64(tile_index=0, length=255, x=0, y=0, width=8), serial):
            colors = [color.brightness for color in pkt.colors]
        return gathered["capability"]["cap"], colors

    cap, colors = run_photons(lumend, program)
    # photons' products list ends before the Ceiling: an unknown product, with no matrix to it.
    assert (cap.product.pid, cap.product.family.value, cap.has_matrix) == (CEILING, "unknown", False)
    assert len(colors) == 64 and all(brightness == pytest.approx(0.5, abs=0.001) for brightness in colors)


@pytest.mark.lumend(fixture=WIDE_HOME, args=LIFX_ARGS)
def test_lifx_async_paints_the_13x26_ceilings_128_pixels_through_a_frame_buffer_and_its_uplight_at_the_last(lumend):
    from lifx.color import HSBK
    from lifx.devices import CeilingLight
    from lifx.theme import Theme

    red = HSBK(hue=0, saturation=1.0, brightness=1.0, kelvin=3500)
    blue = HSBK(hue=240, saturation=1.0, brightness=0.5, kelvin=3500)
    warm = HSBK(hue=30, saturation=0.2, brightness=0.3, kelvin=2700)

    async def run():
        found = await lifx_async_ceiling(WIDE_LABEL)
        result = {"ceiling": isinstance(found, CeilingLight)}
        async with found as ceiling:
            capabilities = ceiling.capabilities
            result["capabilities"] = (capabilities.pid, capabilities.has_matrix, capabilities.has_chain)
            result["kelvin"] = (capabilities.temperature_range.min, capabilities.temperature_range.max)
            chain = await ceiling.get_device_chain()
            result["chain"] = [(t.user_x, t.user_y, t.width, t.height, t.device_version_product) for t in chain]
            result["frame buffer"] = chain[0].requires_frame_buffer
            result["uplight zone"] = ceiling.uplight_zone
            # Every pixel its own: four rows of 16 at a time into frame buffer 1, then the tile copied to 0.
            painted = [(red if index % 16 < 8 else blue) if index < 64 else (blue if index % 16 < 8 else red)
                       for index in range(128)]
            await ceiling.set_matrix_colors(0, painted)
            result["read"] = (await ceiling.get_all_tile_colors())[0]
            result["painted"] = painted
            await ceiling.set_downlight_colors(red)
            await ceiling.set_uplight_color(warm)
            result["uplight"] = await ceiling.get_uplight_color()
            result["downlight"] = await ceiling.get_downlight_colors()
            await ceiling.turn_uplight_off()
            await ceiling.refresh_state()
            result["uplight after off"] = await ceiling.get_uplight_color()
            result["on"] = (ceiling.uplight_is_on, ceiling.downlight_is_on)
            # A theme: lifx-async paints the corners' cells it lists without an LED dark, not the uplight.
            await ceiling.apply_theme(Theme([red, blue]))
            result["themed"] = (await ceiling.get_all_tile_colors())[0]
        return result

    result = drive(lumend, lambda: asyncio.run(run()))
    assert result["ceiling"], "a CeilingLight"
    assert result["capabilities"] == (WIDE_CEILING, True, False)
    assert result["kelvin"] == (1500, 9000), "the products list's range before firmware 4.148"
    assert result["chain"] == [(0.0, 0.0, 16, 8, WIDE_CEILING)]
    assert result["frame buffer"], "more than 64 pixels: lifx-async paints through frame buffer 1"
    assert result["uplight zone"] == WIDE_UPLIGHT
    read = result["read"]
    assert len(read) == 128
    assert [(round(c.hue), round(c.brightness, 2)) for c in read] == [
        (round(c.hue), round(c.brightness, 2)) for c in result["painted"]]
    uplight = result["uplight"]
    assert (round(uplight.hue), round(uplight.saturation, 2), round(uplight.brightness, 2), uplight.kelvin) == (
        30, 0.2, 0.3, 2700)
    downlight = result["downlight"]
    assert len(downlight) == 127 and all(color.hue == 0 and color.brightness == 1.0 for color in downlight)
    off = result["uplight after off"]
    assert off.brightness == 0 and off.kelvin == 2700, "dark, its colour kept"
    assert result["on"] == (False, True)
    themed = result["themed"]
    assert len(themed) == 128 and all(themed[index].brightness == 0 for index in WIDE_CORNERS), themed
    assert all(color.brightness > 0 for index, color in enumerate(themed) if index not in WIDE_CORNERS)


@pytest.mark.lumend(fixture=WIDE_HOME, args=LIFX_ARGS)
def test_aiolifx_reads_and_paints_the_13x26_ceiling_four_rows_at_a_time_and_through_a_frame_buffer(lumend):
    red, blue, warm = (0, 65535, 65535, 3500), (43690, 65535, 32768, 3500), (5461, 13107, 19661, 2700)

    async def run():
        bulbs, discovery = await discovered(1)
        (ceiling,) = bulbs
        await answer(ceiling.get_version)
        features = features_map[ceiling.product]
        result = {"features": (ceiling.product, features["matrix"], features["chain"])}
        await answer(ceiling.get_device_chain)
        result["chain"] = (ceiling.tile_devices_count, ceiling.tile_device_width, ceiling.tile_devices[0]["height"])

        async def read():
            for y in (0, 4):
                await answer(ceiling.get64, y=y)
            return list(ceiling.chain[0])

        result["first"] = await read()
        # Straight into the frame buffer shown, four rows of the tile's width (16) at a time.
        await answer(ceiling.set64, colors=[red] * 64)
        await answer(ceiling.set64, y=4, colors=[blue] * 63 + [warm])
        result["painted"] = await read()
        # Into frame buffer 1 out of sight, then copied over whole (the tile's width, aiolifx's eight rows).
        await answer(ceiling.set64, fb_index=1, colors=[blue] * 64)
        await answer(ceiling.set64, fb_index=1, y=4, colors=[red] * 63 + [warm])
        result["drawn"] = await read()
        await answer(ceiling.copy_frame_buffer)
        result["copied"] = await read()
        discovery.cleanup()
        return result

    result = drive(lumend, lambda: asyncio.run(run()))
    assert result["features"] == (WIDE_CEILING, True, False)
    assert result["chain"] == (1, 16, 8)
    assert len(result["first"]) == 128 and len(set(result["first"])) == 1, result["first"]
    assert result["painted"] == [red] * 64 + [blue] * 63 + [warm]
    assert result["drawn"] == result["painted"], "drawn out of sight"
    assert result["copied"] == [blue] * 64 + [red] * 63 + [warm]


@pytest.mark.lumend(fixture=WIDE_HOME, args=LIFX_ARGS)
def test_photons_knows_no_13x26_ceiling_but_reads_its_128_pixels_four_rows_at_a_time(lumend):
    if PHOTONS_ERROR:
        pytest.skip(f"photons (lifx-photons-core) cannot run here: {PHOTONS_ERROR}")
    from photons_messages import TileMessages

    async def program(sender):
        from test_photons import by_label

        serial, _ = (await by_label(sender))[WIDE_LABEL]
        gathered = {}
        async for _, name, info in sender.gatherer.gather(sender.make_plans("capability", "chain"), [serial]):
            gathered[name] = info
        colors = []
        for y in (0, 4):
            async for pkt in sender(TileMessages.Get64(tile_index=0, length=255, x=0, y=y, width=16), serial):
                colors.append([color.brightness for color in pkt.colors])
        return gathered["capability"]["cap"], gathered.get("chain"), colors

    cap, chain, colors = run_photons(lumend, program)
    # photons' products list ends before either Ceiling: an unknown product, with no matrix to it.
    assert (cap.product.pid, cap.product.family.value, cap.has_matrix) == (WIDE_CEILING, "unknown", False)
    assert [len(row) for row in colors] == [64, 64], "one State64 for each four rows"
    assert all(brightness == pytest.approx(0.5, abs=0.001) for row in colors for brightness in row)
