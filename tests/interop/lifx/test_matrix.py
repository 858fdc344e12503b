"""A LIFX Tile's matrix and a strip's firmware effect, driven by lifxlan and lifx-async.

The home's bulbs take 200 messages a second rather than the LIFX family's 20: a query is answered at once, so the
virtual clock hardly moves while lifxlan reads a chain, and these tests are about the matrix, not the rate limit.
"""

import asyncio

import pytest
from lifxlan import LifxLAN
from lumen import ErrorCode, LumenError

from conftest import LIFX_ARGS, drive, light_scope

HOME = "homes/matrix.json"
LABELS = {"Den Tile", "Den Strip"}
RED = [0, 65535, 65535, 3500]
BLUE = [43690, 65535, 32768, 3500]


def lights(lumend):
    return drive(lumend, lambda: {light.get_label(): light for light in LifxLAN(len(LABELS)).get_lights()})


@pytest.mark.lumend(fixture=HOME, args=LIFX_ARGS)
def test_lifxlan_reads_the_chain_and_paints_a_tile_then_the_whole_chain(lumend):
    found = lights(lumend)
    tile = found["Den Tile"]
    assert type(tile).__name__ == "TileChain" and drive(lumend, tile.get_product) == 55
    assert drive(lumend, tile.get_tile_count) == 5
    info = drive(lumend, lambda: tile.get_tile_info(refresh_cache=True))
    assert [(t.user_x, t.user_y, t.width, t.height) for t in info] == [(i, 0, 8, 8) for i in range(5)]

    drive(lumend, lambda: tile.set_tile_colors(1, [RED] * 32 + [BLUE] * 32))
    shown = drive(lumend, lambda: tile.get_tile_colors(1))[0]
    assert [list(color) for color in shown] == [RED] * 32 + [BLUE] * 32
    # One colour over every tile: the light itself turns red.
    drive(lumend, lambda: tile.set_tilechain_colors([[RED] * 64] * 5))
    hue, saturation, brightness, _ = drive(lumend, tile.get_color)
    assert (hue, saturation, brightness) == (0, 65535, 65535)

    # Within the row: lifxlan 1.2.9 redraws its map before it measures the canvas again, so a tile moved off the
    # row fails in lifxlan itself.
    drive(lumend, lambda: tile.set_tile_coordinates(2, 2.5, 0.0))
    info = drive(lumend, lambda: tile.get_tile_info(refresh_cache=True))
    assert (info[2].user_x, info[2].user_y) == (2.5, 0.0)


@pytest.mark.lumend(fixture=HOME, args=LIFX_ARGS)
def test_lifxlan_starts_and_reads_a_tile_effect_and_a_strip_effect(lumend):
    found = lights(lumend)
    tile, strip = found["Den Tile"], found["Den Strip"]
    assert drive(lumend, tile.get_tile_effect)["type"] == 0
    drive(lumend, lambda: tile.set_tile_effect(effect_type=2, speed=3000, palette=[RED, BLUE]))
    effect = drive(lumend, tile.get_tile_effect)
    assert effect["type"] == 2 and effect["speed"] == 3000
    assert [list(color) for color in effect["palette"][:2]] == [RED, BLUE]
    drive(lumend, lambda: strip.set_multizone_effect(effect_type=1, speed=1000, parameters=[0, 1]))
    effect = drive(lumend, strip.get_multizone_effect)
    assert effect["type"] == 1 and effect["speed"] == 1000


@pytest.mark.lumend(fixture=HOME, args=LIFX_ARGS)
def test_lifx_async_reads_the_chain_and_sets_a_tiles_pixels_and_an_effect(lumend):
    from lifx import discover
    from lifx.color import HSBK
    from lifx.devices.matrix import MatrixLight
    from lifx.protocol.protocol_types import FirmwareEffect

    async def run():
        devices = {}
        async for device in discover(timeout=2.0):
            devices[await device.get_label()] = device
            if len(devices) == len(LABELS):
                break
        tile = devices["Den Tile"]
        assert isinstance(tile, MatrixLight)
        chain = await tile.get_device_chain()
        assert [(t.width, t.height) for t in chain] == [(8, 8)] * 5
        red = HSBK(hue=0, saturation=1.0, brightness=1.0, kelvin=3500)
        blue = HSBK(hue=240, saturation=1.0, brightness=0.5, kelvin=3500)
        await tile.set64(3, 1, 0, 0, 8, 0, [red] * 8 + [blue] * 56)
        shown = await tile.get64(tile_index=3)
        await tile.set_effect(FirmwareEffect.MORPH, speed=2.0, palette=[red, blue])
        effect = await tile.get_effect()
        return shown, effect

    shown, effect = drive(lumend, lambda: asyncio.run(run()))
    assert len(shown) == 64
    assert all(color.saturation == pytest.approx(1.0) and color.hue == pytest.approx(0, abs=0.1) for color in shown[:8])
    assert all(color.hue == pytest.approx(240, abs=0.1) for color in shown[8:])
    assert effect.effect_type.name == "MORPH" and len(effect.palette) >= 2


@pytest.mark.lumend(fixture=HOME, args=LIFX_ARGS)
def test_a_tile_keeps_to_its_kelvin_range_so_lifx_async_can_send_back_the_colour_it_reads(lumend):
    from lifx import discover

    # LIFX's products list gives the Tile 2,500-9,000 K (400-111 mireds): the scope protocol refuses 1,500 K.
    with pytest.raises(LumenError) as refused:
        lumend.set_state(in_scope=light_scope(lumend, "den.tile"), colorTemperature=667)
    assert refused.value.code == ErrorCode.INVALID_PARAMS and "111–400" in refused.value.message

    # lifxlan sends what it is given: the bulb takes 1,500 K as its warmest, 2,500 K.
    tile = lights(lumend)["Den Tile"]
    drive(lumend, lambda: tile.set_color([0, 0, 65535, 1500]))

    async def read_and_send_back():
        async for device in discover(timeout=2.0):
            if await device.get_label() == "Den Tile":
                color, _, _ = await device.get_color()
                # lifx-async refuses a colour outside the product's range before sending it.
                await device.set_color(color)
                return color.kelvin
        return None

    assert drive(lumend, lambda: asyncio.run(read_and_send_back())) == 2500
