"""lifx-async (a modern asyncio LIFX library) against lumend's bulbs."""

import asyncio

import pytest
from lifx import discover

from conftest import BULBS, LIFX_ARGS, drive, light_scope


async def found(timeout: float = 2.0):
    bulbs = {}
    async for device in discover(timeout=timeout):
        bulbs[await device.get_label()] = device
        if len(bulbs) == len(BULBS):
            break
    return bulbs


@pytest.mark.lumend(args=LIFX_ARGS)
def test_discovery_reads_and_a_change_with_a_duration(lumend):
    bulbs = drive(lumend, lambda: asyncio.run(found()))
    assert set(bulbs) == set(BULBS)

    async def read(label):
        bulb = (await found())[label]
        color, power, name = await bulb.get_color()
        return color, power, name

    color, power, name = drive(lumend, lambda: asyncio.run(read("Bedside Right")))
    assert name == "Bedside Right" and power == 0 and color.saturation > 0

    async def switch_on():
        bulb = (await found())["Bedside Right"]
        await bulb.set_power(True, duration=0.5)

    drive(lumend, lambda: asyncio.run(switch_on()))
    lumend.settle()
    scope = light_scope(lumend, BULBS["Bedside Right"])
    assert lumend.get("isOn", in_scope=scope) is True
    lumend.set("isOn", False, in_scope=scope, wait=False)
    lumend.settle()
    _, power, _ = drive(lumend, lambda: asyncio.run(read("Bedside Right")))
    assert power == 0
