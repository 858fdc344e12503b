"""A colour light named a Candle, the LIFX Candle Colour: a matrix of one 5×6 tile without a chain, driven by
lifx-async, photons and aiolifx as each drives a real one (their own matrix code: the device chain, Get64, Set64,
CopyFrameBuffer and firmware effects); a white to warm Candle beside it stays a bulb of one colour.

The home's bulbs take 200 messages a second rather than the LIFX family's 20, as the Tile's in test_matrix.py: these
tests are about the matrix, not the rate limit.
"""

import asyncio

from aiolifx.products import features_map
import pytest

from conftest import LIFX_ARGS, drive
from test_aiolifx import answer, discovered
from test_photons import PHOTONS_ERROR, run_photons

HOME = "homes/candle.json"
LABELS = {"Hall Candle", "Warm Candle"}
CANDLE = 137  # LIFX Candle Colour (US)
WARM_CANDLE = 81  # LIFX Candle White to Warm (US)


async def lifx_async_devices():
    from lifx import discover

    devices = {}
    async for device in discover(timeout=2.0):
        devices[await device.get_label()] = device
        if len(devices) == len(LABELS):
            break
    return devices


@pytest.mark.lumend(fixture=HOME, args=LIFX_ARGS)
def test_lifx_async_reads_the_candles_one_tile_and_paints_its_thirty_pixels(lumend):
    from lifx.color import HSBK
    from lifx.devices.matrix import MatrixLight
    from lifx.protocol.protocol_types import FirmwareEffect
    from lifx.theme import Theme

    red = HSBK(hue=0, saturation=1.0, brightness=1.0, kelvin=3500)
    blue = HSBK(hue=240, saturation=1.0, brightness=0.5, kelvin=3500)

    async def run():
        devices = await lifx_async_devices()
        candle, warm = devices["Hall Candle"], devices["Warm Candle"]
        result = {"matrix": isinstance(candle, MatrixLight), "warm matrix": isinstance(warm, MatrixLight)}
        await warm.ensure_capabilities()
        result["warm"] = (warm.capabilities.pid, warm.capabilities.temperature_range.min,
                          warm.capabilities.temperature_range.max)
        await candle.ensure_capabilities()
        capabilities = candle.capabilities
        result["capabilities"] = (capabilities.pid, capabilities.has_matrix, capabilities.has_chain)
        result["kelvin"] = (capabilities.temperature_range.min, capabilities.temperature_range.max)
        chain = await candle.get_device_chain()
        result["chain"] = [(t.user_x, t.user_y, t.width, t.height, t.device_version_product) for t in chain]
        # Every pixel its own: one Set64 five to a row, read back with one Get64.
        painted = [red if index % 5 < 2 else blue for index in range(30)]
        await candle.set_matrix_colors(0, painted)
        result["read"] = (await candle.get_all_tile_colors())[0]
        # A theme: lifx-async paints the three cells of the top row it lists without an LED dark itself.
        await candle.apply_theme(Theme([red, blue]))
        result["themed"] = (await candle.get_all_tile_colors())[0]
        await candle.set_effect(FirmwareEffect.FLAME, speed=4.0)
        result["effect"] = (await candle.get_effect()).effect_type.name
        return result

    result = drive(lumend, lambda: asyncio.run(run()))
    assert result["matrix"] and not result["warm matrix"], "the colour Candle a matrix, the white one a bulb"
    assert result["warm"] == (WARM_CANDLE, 2200, 6500), "the Candle White to Warm, in its kelvin range"
    assert result["capabilities"] == (CANDLE, True, False)
    assert result["kelvin"] == (1500, 9000)
    assert result["chain"] == [(0.0, 0.0, 5, 6, CANDLE)]
    read = result["read"]
    assert len(read) == 30
    assert all(color.hue == pytest.approx(0, abs=0.1) for index, color in enumerate(read) if index % 5 < 2)
    assert all(color.hue == pytest.approx(240, abs=0.1) for index, color in enumerate(read) if index % 5 >= 2)
    themed = result["themed"]
    assert len(themed) == 30 and [themed[index].brightness for index in (2, 3, 4)] == [0, 0, 0]
    assert all(color.brightness > 0 for index, color in enumerate(themed) if index not in (2, 3, 4))
    assert result["effect"] == "FLAME"


@pytest.mark.lumend(fixture=HOME, args=LIFX_ARGS)
def test_photons_gathers_the_candles_chain_and_pixels_and_starts_an_effect(lumend):
    if PHOTONS_ERROR:
        pytest.skip(f"photons (lifx-photons-core) cannot run here: {PHOTONS_ERROR}")
    from photons_control.tile import SetTileEffect
    from photons_messages import TileMessages

    async def program(sender):
        from test_photons import by_label

        found = await by_label(sender)
        serial, _ = found["Hall Candle"]
        warm, _ = found["Warm Candle"]
        gathered = {}
        plans = sender.make_plans("capability", "parts", "colors", "firmware_effects")
        async for device, name, info in sender.gatherer.gather(plans, [serial, warm]):
            gathered.setdefault(device, {})[name] = info
        # Half the rows red, five to a row, as photons' set_chain_state sends a Set64: no reply asked for, as a
        # device sends none.
        red = {"hue": 0, "saturation": 1, "brightness": 1, "kelvin": 3500}
        blue = {"hue": 240, "saturation": 1, "brightness": 0.5, "kelvin": 3500}
        colors = [red] * 15 + [blue] * 15
        await sender(
            TileMessages.Set64(
                tile_index=0, length=1, x=0, y=0, width=5, duration=0, colors=colors, res_required=False),
            serial)
        painted = None
        async for pkt in sender(TileMessages.Get64(tile_index=0, length=255, x=0, y=0, width=5), serial):
            painted = [(round(color.hue), color.saturation) for color in pkt.colors[:30]]
        await sender(SetTileEffect("MORPH", palette=["red", "blue"]), serial)
        effect = None
        async for pkt in sender(TileMessages.GetTileEffect(), serial):
            effect = pkt.type.name
        return gathered[serial], gathered[warm], painted, effect

    candle, warm, painted, effect = run_photons(lumend, program)
    cap = candle["capability"]["cap"]
    assert (cap.product.pid, cap.has_matrix, cap.has_chain) == (CANDLE, True, False)
    assert (cap.min_kelvin, cap.max_kelvin) == (1500, 9000)
    assert [(part.user_x, part.user_y, part.width, part.height) for part in candle["parts"]] == [(0, 0, 5, 6)]
    assert len(candle["colors"]) == 1, "one tile's colours"
    assert candle["firmware_effects"]["type"].name == "OFF"
    warm_cap = warm["capability"]["cap"]
    assert (warm_cap.product.pid, warm_cap.has_matrix, warm_cap.min_kelvin, warm_cap.max_kelvin) == (
        WARM_CANDLE, False, 2200, 6500)
    assert painted == [(0, 1)] * 15 + [(240, 1)] * 15
    assert effect == "MORPH"


@pytest.mark.lumend(fixture=HOME, args=LIFX_ARGS)
def test_aiolifx_reads_the_chain_paints_through_a_frame_buffer_and_starts_an_effect(lumend):
    red, blue = (0, 65535, 65535, 3500), (43690, 65535, 32768, 3500)

    async def run():
        bulbs, discovery = await discovered(len(LABELS))
        result = {}
        for bulb in bulbs:
            await answer(bulb.get_label)
            await answer(bulb.get_version)
        candle = next(bulb for bulb in bulbs if bulb.label == "Hall Candle")
        warm = next(bulb for bulb in bulbs if bulb.label == "Warm Candle")
        features = features_map[candle.product]
        result["features"] = (candle.product, features["matrix"], features["chain"])
        result["warm"] = (warm.product, features_map[warm.product]["matrix"],
                          features_map[warm.product]["min_kelvin"], features_map[warm.product]["max_kelvin"])
        await answer(candle.get_device_chain)
        result["chain"] = (candle.tile_devices_count, candle.tile_device_width, candle.tile_devices[0]["height"])
        # As Home Assistant reads the pixels: one Get64 as wide as the tile.
        await answer(candle.get64)
        result["shown"] = list(candle.chain[0][:30])
        # Drawn out of sight (aiolifx pads the colours to 64), then copied to the frame buffer shown: aiolifx
        # copies eight rows unless told otherwise.
        await answer(candle.set64, fb_index=1, colors=[red] * 15 + [blue] * 15)
        await answer(candle.copy_frame_buffer)
        await answer(candle.get64)
        result["copied"] = list(candle.chain[0][:30])
        await answer(candle.set_tile_effect, effect="FLAME", speed=4)
        await answer(candle.get_tile_effect)
        result["effect"] = candle.effect["effect"]
        discovery.cleanup()
        return result

    result = drive(lumend, lambda: asyncio.run(run()))
    assert result["features"] == (CANDLE, True, False)
    assert result["warm"] == (WARM_CANDLE, False, 2200, 6500)
    assert result["chain"] == (1, 5, 6)
    assert len(set(result["shown"])) == 1, "one colour: the light's"
    assert result["shown"][0][2] == 32768, "the light's brightness, 50 %"
    assert result["copied"] == [red] * 15 + [blue] * 15
    assert result["effect"] == "FLAME"
