"""lifx-async (a modern asyncio LIFX library) against lumend's bulbs."""

import asyncio

import pytest
from lifx import discover, find_by_ip

from conftest import ADDRESSES, BULBS, LIFX_ARGS, drive, light_scope


async def found(count: int = len(BULBS), timeout: float = 2.0):
    """The bulbs discovery finds, by label, once `count` have answered (or the time is up)."""
    bulbs = {}
    async for device in discover(timeout=timeout):
        bulbs[await device.get_label()] = device
        if len(bulbs) == count:
            break
    return bulbs


@pytest.mark.lumend(args=LIFX_ARGS)
def test_discovery_reads_and_a_change_with_a_duration(lumend):
    bulbs = drive(lumend, lambda: asyncio.run(found()))
    assert set(bulbs) == set(BULBS)
    assert {label: device.ip for label, device in bulbs.items()} == ADDRESSES

    async def read(label):
        bulb = (await found())[label]
        color, power, name = await bulb.get_color()
        return color, power, name

    color, power, name = drive(lumend, lambda: asyncio.run(read("Bedside Right")))
    assert name == "Bedside Right" and power == 0 and color.saturation > 0

    async def switch_on_and_dim():
        from lifx.color import HSBK

        bulb = (await found())["Bedside Right"]
        await bulb.set_power(True, duration=0.5)
        await bulb.set_color(HSBK(hue=0, saturation=0, brightness=0.25, kelvin=4000), duration=1.0)

    drive(lumend, lambda: asyncio.run(switch_on_and_dim()))
    lumend.settle()
    scope = light_scope(lumend, BULBS["Bedside Right"])
    assert lumend.get("isOn", in_scope=scope) is True
    assert lumend.get("brightness", in_scope=scope) == pytest.approx(25, abs=0.001)  # 16384 of 65535
    assert lumend.get("colorTemperature", in_scope=scope) == 250
    lumend.set("isOn", False, in_scope=scope, wait=False)
    lumend.settle()
    _, power, _ = drive(lumend, lambda: asyncio.run(read("Bedside Right")))
    assert power == 0


@pytest.mark.lumend(args=LIFX_ARGS)
def test_an_unreachable_bulb_times_out_and_a_flood_does_not_stop_another(lumend):
    from lifx.exceptions import LifxError

    async def bulbs():
        return await found()

    found_bulbs = drive(lumend, lambda: asyncio.run(bulbs()))
    assert set(found_bulbs) == set(BULBS)
    lumend.call("setReachable", {"light": BULBS["Bedside Right"], "reachable": False}, in_scope=lumend.simulation())

    async def unreachable_power():
        bulb = (await found(timeout=1.0)).get("Bedside Right")
        if bulb is None:
            return "not found"  # it no longer answers discovery either
        try:
            await bulb.get_power()
        except LifxError:
            return "timed out"
        return "answered"

    assert drive(lumend, lambda: asyncio.run(unreachable_power())) in ("not found", "timed out")

    async def flood_then_read():
        bulbs = await found(timeout=1.0)
        strip, left = bulbs["TV Lightstrip"], bulbs["Bedside Left"]
        # Far past the 20 a second a bulb takes, without waiting: the excess is dropped.
        await asyncio.gather(*(strip.set_power(True) for _ in range(40)), return_exceptions=True)
        return await left.get_label()

    assert drive(lumend, lambda: asyncio.run(flood_then_read())) == "Bedside Left"
    lumend.advance(3_000)
    outcomes = [record["outcome"] for record in lumend.commands(light=BULBS["TV Lightstrip"])]
    assert "dropped" in outcomes


@pytest.mark.lumend(args=LIFX_ARGS)
def test_a_bulb_found_by_its_address_alone_is_that_bulb(lumend):
    async def by_address():
        labels = {}
        for label, address in ADDRESSES.items():
            # Discovery sent to one address: only the bulb there answers.
            device = await find_by_ip(address, timeout=1.0)
            labels[address] = device and (device.ip, await device.get_label())
        return labels

    labels = drive(lumend, lambda: asyncio.run(by_address()))
    assert labels == {address: (address, label) for label, address in ADDRESSES.items()}


@pytest.mark.lumend(args=LIFX_ARGS)
def test_a_device_sets_itself_up_and_reads_its_wifi_uptime_and_group(lumend):
    async def set_up():
        bulb = (await found())["TV Lightstrip"]
        # async with runs lifx-async's set-up: host and Wi-Fi firmware, label, location, group.
        async with bulb:
            wifi = await bulb.get_wifi_info()
            info = await bulb.get_info()
            firmware = await bulb.get_wifi_firmware()
            group = await bulb.get_group()
            return wifi.rssi, wifi.rssi_unit, info.uptime, firmware, group

    rssi, unit, uptime, firmware, group = drive(lumend, lambda: asyncio.run(set_up()))
    assert (rssi, unit) == (-55, "dBm")
    assert uptime > 0 and (firmware.version_major, firmware.version_minor) == (3, 90)
    assert group.label == "Living Room" and group.updated_at > 0


@pytest.mark.lumend(args=LIFX_ARGS)
def test_a_brightness_set_alone_keeps_the_colour(lumend):
    scope = light_scope(lumend, BULBS["Bedside Left"])
    before = lumend.get("color", in_scope=scope)

    async def dim():
        bulb = (await found())["Bedside Left"]
        # lifx-async sets a brightness alone with SetWaveformOptional, naming only the brightness.
        await bulb.set_brightness(0.25, duration=0.5)

    drive(lumend, lambda: asyncio.run(dim()))
    lumend.settle()
    assert lumend.get("brightness", in_scope=scope) == pytest.approx(25, abs=0.001)  # 16384 of 65535
    assert lumend.get("color", in_scope=scope) == before


@pytest.mark.lumend(fixture="homes/capable.json", args=LIFX_ARGS)
def test_infrared_and_a_hev_cycle_on_the_products_that_have_them(lumend):
    async def start():
        bulbs = await found(2)
        night, clean = bulbs["Porch Night Vision"], bulbs["Porch Clean"]
        await night.set_infrared(0.5)
        # async with runs the HEV light's set-up too: its configuration, cycle and last result.
        async with clean:
            await clean.set_hev_cycle(True, 60)
            cycle = await clean.get_hev_cycle()
        return night.ip, clean.ip, await night.get_infrared(), cycle.duration_s, cycle.remaining_s

    night_ip, clean_ip, infrared, duration, remaining = drive(lumend, lambda: asyncio.run(start()))
    # The first bulb at --lifx's address; the Clean where its fixture entry puts it.
    assert (night_ip, clean_ip) == ("10.77.0.10", "10.77.0.12")
    assert abs(infrared - 0.5) < 0.01
    assert duration == 60 and 0 < remaining <= 60
    lumend.advance(61_000)

    async def finished():
        clean = (await found(2))["Porch Clean"]
        return (await clean.get_hev_cycle()).remaining_s, await clean.get_last_hev_result()

    remaining, result = drive(lumend, lambda: asyncio.run(finished()))
    assert remaining == 0 and result.name == "SUCCESS"


@pytest.mark.lumend(args=LIFX_ARGS)
def test_a_strip_has_zones_read_and_set_with_extended_messages(lumend):
    async def zones():
        from lifx.color import HSBK

        strip = (await found())["TV Lightstrip"]
        async with strip:
            count = await strip.get_zone_count()
            await strip.set_color_zones(8, 15, HSBK(hue=240, saturation=1.0, brightness=0.5, kelvin=3500))
            colors = await strip.get_extended_color_zones()
            return type(strip).__name__, count, colors

    kind, count, colors = drive(lumend, lambda: asyncio.run(zones()))
    assert kind == "MultiZoneLight" and count == 16 and len(colors) == 16
    assert all(round(color.hue) == 240 for color in colors[8:]) and round(colors[0].hue) != 240


@pytest.mark.lumend(fixture="homes/white.json", args=LIFX_ARGS)
def test_mini_whites_read_a_colour_that_can_be_sent_back_and_an_on_off_one_keeps_its_brightness(lumend):
    from lifx.color import HSBK

    async def round_trip_and_dim():
        bulbs = await found(2)
        dimmable, plain = bulbs["Hall Dimmable"], bulbs["Hall Plain"]
        # lifx-async checks a colour against the product's kelvin range (the Mini White's: 2,700 K alone) before
        # sending it: the colour a Mini White reads must be one it can be sent.
        color, _, _ = await dimmable.get_color()
        await dimmable.set_color(HSBK(hue=color.hue, saturation=color.saturation, brightness=0.5, kelvin=color.kelvin))
        # set_brightness is a waveform for the brightness alone: an on/off light has none to change.
        await plain.set_brightness(0.2)
        plain_color, plain_power, _ = await plain.get_color()
        return color.kelvin, plain_color.brightness, plain_power

    kelvin, plain_brightness, plain_power = drive(lumend, lambda: asyncio.run(round_trip_and_dim()))
    assert kelvin == 2700
    assert plain_brightness == 1.0 and plain_power == 65535
    lumend.settle()
    assert lumend.get("brightness", in_scope=light_scope(lumend, "hall.dimmable")) == pytest.approx(50, abs=0.001)
    assert lumend.get("isOn", in_scope=light_scope(lumend, "hall.plain")) is True
