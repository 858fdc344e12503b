"""aiolifx (Home Assistant's LIFX library) against lumend's bulbs."""

import asyncio
import math

import aiolifx
import pytest

from conftest import ADDRESSES, BULBS, LIFX_ARGS, drive, light_scope


class Collector:
    """What aiolifx's discovery hands its parent: the bulbs it registers."""

    def __init__(self):
        self.bulbs = []

    def register(self, bulb):
        self.bulbs.append(bulb)

    def unregister(self, bulb):
        pass


async def discovered(expected: int, seconds: float = 3.0):
    loop = asyncio.get_running_loop()
    parent = Collector()
    discovery = aiolifx.LifxDiscovery(loop, parent, discovery_interval=1)
    discovery.start()
    for _ in range(int(seconds * 20)):
        if len(parent.bulbs) >= expected:
            break
        await asyncio.sleep(0.05)
    # The bulbs' connections live as long as the discovery: the caller cleans it up when done.
    return parent.bulbs, discovery


async def answer(call, *arguments, **options):
    """aiolifx's request with a callback, awaited."""
    future = asyncio.get_running_loop().create_future()
    call(*arguments, callb=lambda bulb, response: future.done() or future.set_result(response), **options)
    return await asyncio.wait_for(future, 5)


@pytest.mark.lumend(args=LIFX_ARGS)
def test_discovery_reads_label_power_and_colour(lumend):
    async def read():
        bulbs, discovery = await discovered(len(BULBS))
        result = {}
        for bulb in bulbs:
            await answer(bulb.get_label)
            await answer(bulb.get_color)
            result[bulb.label] = (bulb.power_level, bulb.color, bulb.ip_addr)
        discovery.cleanup()
        return result

    bulbs = drive(lumend, lambda: asyncio.run(read()))
    assert set(bulbs) == set(BULBS)
    assert {label: bulb[2] for label, bulb in bulbs.items()} == ADDRESSES, "each bulb at its own address"
    power, color, _ = bulbs["TV Lightstrip"]
    assert power == 0 and color[1] > 0


@pytest.mark.lumend(args=LIFX_ARGS)
def test_a_power_change_with_a_duration_is_seen_over_the_socket(lumend):
    async def switch_on():
        bulbs, discovery = await discovered(len(BULBS))
        for bulb in bulbs:
            await answer(bulb.get_label)
        strip = next(bulb for bulb in bulbs if bulb.label == "TV Lightstrip")
        await answer(strip.set_power, True, duration=400)
        await answer(strip.set_color, [0, 0, 16384, 2700], duration=800)
        discovery.cleanup()

    drive(lumend, lambda: asyncio.run(switch_on()))
    lumend.settle()
    scope = light_scope(lumend, BULBS["TV Lightstrip"])
    assert lumend.get("isOn", in_scope=scope) is True
    assert lumend.get("brightness", in_scope=scope) == pytest.approx(25, abs=0.001)  # 16384 of 65535
    assert lumend.get("colorTemperature", in_scope=scope) == 370


@pytest.mark.lumend(args=LIFX_ARGS)
def test_a_change_over_the_socket_an_unreachable_bulb_and_a_flood(lumend):
    scope = light_scope(lumend, BULBS["Bedside Left"])
    lumend.set("isOn", True, in_scope=scope, wait=False)
    lumend.settle()
    lumend.call("setReachable", {"light": BULBS["Bedside Right"], "reachable": False}, in_scope=lumend.simulation())

    async def run():
        bulbs, discovery = await discovered(len(BULBS) - 1)
        labelled = {}
        for bulb in bulbs:
            await answer(bulb.get_label)
            labelled[bulb.label] = bulb
        left, strip = labelled["Bedside Left"], labelled["TV Lightstrip"]
        power = await answer(left.get_power)
        # Far past the 20 a second a bulb takes, fire and forget: the excess is dropped.
        for _ in range(40):
            strip.set_power(True, rapid=True)
        still = await answer(left.get_color)
        discovery.cleanup()
        return set(labelled), power.power_level, still.label

    found, power, label = drive(lumend, lambda: asyncio.run(run()))
    assert "Bedside Right" not in found, "an unreachable bulb answers nothing, discovery included"
    assert power == 65535
    assert label.decode().rstrip("\x00") == "Bedside Left"
    lumend.advance(3_000)
    outcomes = [record["outcome"] for record in lumend.commands(light=BULBS["TV Lightstrip"])]
    assert "dropped" in outcomes


@pytest.mark.lumend(args=LIFX_ARGS)
def test_the_wifi_signal_home_assistant_shows_and_the_uptime(lumend):
    async def read():
        bulbs, discovery = await discovered(len(BULBS))
        bulb = bulbs[0]
        wifi = await answer(bulb.get_wifiinfo)
        info = await answer(bulb.get_hostinfo)
        await answer(bulb.get_wififirmware)
        firmware = bulb.wifi_firmware_version
        discovery.cleanup()
        return wifi.signal, info.uptime, firmware

    signal, uptime, firmware = drive(lumend, lambda: asyncio.run(read()))
    # Home Assistant's RSSI sensor: 10 * log10(signal), rounded.
    assert int(math.floor(10 * math.log10(signal) + 0.5)) == -55
    assert uptime > 0 and firmware > 0


@pytest.mark.lumend(fixture="homes/capable.json", args=LIFX_ARGS)
def test_infrared_is_kept_and_read_back(lumend):
    async def run():
        bulbs, discovery = await discovered(2)
        for bulb in bulbs:
            await answer(bulb.get_label)
        night = next(bulb for bulb in bulbs if bulb.label == "Porch Night Vision")
        await answer(night.set_infrared, 32768)
        level = await answer(night.get_infrared)
        discovery.cleanup()
        return level.infrared_brightness

    assert drive(lumend, lambda: asyncio.run(run())) == 32768
