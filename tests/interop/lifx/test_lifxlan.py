"""lifxlan (a widely used synchronous LIFX library) against lumend's bulbs."""

import math

import pytest
from lifxlan import LifxLAN, WorkflowException

from conftest import ADDRESSES, BULBS, LIFX_ARGS, drive, light_scope


def bulbs(lumend):
    """The bulbs lifxlan finds, by label, found on a thread while the clock moves, as every call here is."""
    return drive(lumend, lambda: {light.get_label(): light for light in LifxLAN(len(BULBS)).get_lights()})


@pytest.mark.lumend(args=LIFX_ARGS)
def test_discovery_finds_the_bulbs_on_the_lan_and_reads_them(lumend):
    found = bulbs(lumend)
    assert set(found) == set(BULBS)
    assert {label: light.get_ip_addr() for label, light in found.items()} == ADDRESSES
    strip = found["TV Lightstrip"]
    # A LIFX Z, with zones.
    assert drive(lumend, strip.get_product) == 32 and drive(lumend, strip.get_power) == 0
    hue, saturation, brightness, kelvin = drive(lumend, strip.get_color)
    assert saturation > 0 and 0 < brightness < 65535
    assert drive(lumend, strip.get_group_label) == "Living Room"
    assert drive(lumend, strip.get_location_label) == "Demo Home"


@pytest.mark.lumend(args=LIFX_ARGS)
def test_switching_and_dimming_with_a_duration_is_seen_over_the_socket_and_back(lumend):
    left = bulbs(lumend)["Bedside Left"]
    scope = light_scope(lumend, BULBS["Bedside Left"])
    drive(lumend, lambda: left.set_power(65535, duration=500, rapid=False))
    drive(lumend, lambda: left.set_color([0, 0, 32768, 2700], duration=1000, rapid=False))
    lumend.settle()
    assert lumend.get("isOn", in_scope=scope) is True
    assert lumend.get("brightness", in_scope=scope) == pytest.approx(50, abs=0.001)  # 32768 of 65535
    assert lumend.get("colorTemperature", in_scope=scope) == 370
    lumend.set("brightness", 100, in_scope=scope, wait=False)
    lumend.settle()
    assert drive(lumend, left.get_color)[2] == 65535


@pytest.mark.lumend(args=LIFX_ARGS)
def test_a_colour_sent_without_waiting_is_what_the_next_get_reads(lumend):
    """`rapid=True` sends the change and returns at once; a bulb takes its messages in the order they came, so the
    Get sent after it, while the change is still on its way, reads the new colour."""
    left = bulbs(lumend)["Bedside Left"]
    color = [0, 0, 20000, 3000]

    def set_then_get():
        left.set_color(color, rapid=True)
        return left.get_color()

    read = list(drive(lumend, set_then_get))
    records = lumend.call("commands", {"light": BULBS["Bedside Left"]}, in_scope=lumend.simulation())["commands"]
    assert read == color, [(r["outcome"], r["atMs"]) for r in records]


@pytest.mark.lumend(args=LIFX_ARGS)
def test_an_unreachable_bulb_times_out(lumend):
    right = bulbs(lumend)["Bedside Right"]
    lumend.call("setReachable", {"light": BULBS["Bedside Right"], "reachable": False}, in_scope=lumend.simulation())
    with pytest.raises(WorkflowException):
        drive(lumend, right.get_power)


@pytest.mark.lumend(args=LIFX_ARGS)
def test_a_flood_past_one_bulbs_rate_does_not_stop_another(lumend):
    found = bulbs(lumend)
    strip, left = found["TV Lightstrip"], found["Bedside Left"]
    # Discovery's questions, answered at once, count against the strip's 20 a second: a second on, it takes 20
    # again.
    lumend.advance(1_000)
    # Fire and forget, far past the 20 a second a bulb takes: the excess is dropped, as firmware drops it.
    for level in range(100):
        strip.set_power(65535 if level % 2 else 0, rapid=True)
    assert drive(lumend, left.get_label) == "Bedside Left"
    drive(lumend, lambda: left.set_power(65535, rapid=False))
    lumend.advance(3_000)  # past the timeout of what was dropped
    outcomes = [record["outcome"] for record in lumend.commands(light=BULBS["TV Lightstrip"])]
    assert outcomes.count("applied") >= 20 and "dropped" in outcomes


@pytest.mark.lumend(args=LIFX_ARGS)
def test_firmware_and_location_time_are_answered_as_a_bulb_does(lumend):
    left = bulbs(lumend)["Bedside Left"]
    build, version = drive(lumend, left.get_host_firmware_tuple)
    assert version == 3.90 and build > 1_500_000_000_000_000_000
    wifi_build, wifi_version = drive(lumend, left.get_wifi_firmware_tuple)
    assert wifi_build > 0
    assert drive(lumend, left.get_location_updated_at) > 0


@pytest.mark.lumend(args=LIFX_ARGS)
def test_the_wifi_signal_and_the_uptime(lumend):
    # lifxlan 1.2.9 packs the float signal of StateWifiInfo again as an integer: bitstring 5 refuses that, so
    # make interop pins bitstring 4.4.0, with which it reads the signal.
    right = bulbs(lumend)["Bedside Right"]
    signal = drive(lumend, right.get_wifi_signal_mw)
    assert round(10 * math.log10(signal)) == -55, "dBm"
    assert drive(lumend, right.get_wifi_info_tuple) == (signal, 0, 0)
    uptime = drive(lumend, right.get_uptime)  # 0 ns while the clock has not moved since lumend started
    lumend.advance(10_000)
    assert drive(lumend, right.get_uptime) - uptime >= 10_000_000_000, "uptime in ns, on the simulation clock"


@pytest.mark.lumend(args=LIFX_ARGS)
def test_a_strips_zones_are_read_and_set_a_range_at_a_time(lumend):
    strip = bulbs(lumend)["TV Lightstrip"]
    zones = drive(lumend, strip.get_color_zones)
    assert len(zones) == 16 and len(set(map(tuple, zones))) == 1, "one colour along the strip to begin with"
    red = [0, 65535, 65535, 3500]
    drive(lumend, lambda: strip.set_zone_color(0, 7, red))
    zones = drive(lumend, strip.get_color_zones)
    assert [list(zone) for zone in zones[:8]] == [red] * 8 and list(zones[8]) != red
