"""photons (lifx-photons-core, LIFX's own Python framework) against lumend's bulbs, through its public API: the
`lan` target's session, `FoundSerials`, its messages, the gatherer's plans and the colour `Transformer`."""

import threading

import pytest

from conftest import ADDRESSES, BULBS, LIFX_ARGS, light_scope

try:
    # photons' executor first, as its documentation imports it: photons_app.special imported on its own first is
    # a circular import.
    from photons_app.executor import library_setup
    from photons_app.special import FoundSerials
    from photons_control.multizone import SetZones
    from photons_control.planner import Skip
    from photons_control.transform import Transformer
    from photons_messages import DeviceMessages, LightMessages, MultiZoneMessages
except Exception as error:  # noqa: BLE001 - any reason photons cannot run here skips these tests
    PHOTONS_ERROR = f"{type(error).__name__}: {error}"
else:
    PHOTONS_ERROR = None


@pytest.fixture(scope="module", autouse=True)
def photons_runs_here(request):
    if PHOTONS_ERROR:
        reason = f"photons (lifx-photons-core) cannot run here: {PHOTONS_ERROR}"
        with request.config.pluginmanager.getplugin("capturemanager").global_and_fixture_disabled():
            print(f"\nSKIPPED: {reason}")
        pytest.skip(reason)


def run_photons(lumend, program, step_ms: float = 50, limit_ms: float = 120_000):
    """Runs `program(sender)` in a session of photons' `lan` target, as photons runs a program: on the main thread
    (its runner installs a SIGTERM handler, which only the main thread may), while lumend's clock moves on a
    thread of its own (the reverse of `drive`). Returns what `program` returned."""
    collector = library_setup()
    outcome = {}

    async def main():
        async with collector.resolve_target("lan").session() as sender:
            outcome["value"] = await program(sender)

    stop = threading.Event()

    def clock():
        advanced = 0.0
        while not stop.wait(0.02) and advanced < limit_ms:
            lumend.advance(step_ms)
            advanced += step_ms

    thread = threading.Thread(target=clock, daemon=True)
    thread.start()
    try:
        collector.run_coro_as_main(main(), catch_delfick_error=False)
    finally:
        stop.set()
        thread.join(10)
    return outcome["value"]


async def by_label(sender):
    """Every bulb photons finds, as {label: (serial, address)}, from a broadcast GetLabel to `FoundSerials`."""
    found = {}
    async for pkt in sender(DeviceMessages.GetLabel(), FoundSerials()):
        found[pkt.label] = (pkt.serial, pkt.Information.remote_addr[0])
    return found


@pytest.mark.lumend(args=LIFX_ARGS)
def test_discovery_finds_every_bulb_and_the_gatherer_reads_them(lumend):
    async def program(sender):
        _, serials = await FoundSerials().find(sender, timeout=5)
        labelled = await by_label(sender)
        plans = sender.make_plans("label", "state", "capability", "zones", "firmware")
        gathered = {}
        async for serial, name, info in sender.gatherer.gather(plans, serials):
            gathered.setdefault(serial, {})[name] = info
        return serials, labelled, gathered

    serials, labelled, gathered = run_photons(lumend, program)
    assert set(labelled) == set(BULBS)
    assert {label: address for label, (_, address) in labelled.items()} == ADDRESSES
    assert sorted(serials) == sorted(serial for serial, _ in labelled.values())
    assert len(set(serials)) == len(BULBS) and all(serial.startswith("d073d5") for serial in serials)

    info = {gathered[serial]["label"]: gathered[serial] for serial in serials}
    strip, left = info["TV Lightstrip"], info["Bedside Left"]
    # The strip: a LIFX Z (product 32), off, showing a colour, with its 16 zones.
    assert strip["state"]["power"] == 0 and strip["state"]["saturation"] > 0
    assert 0 < strip["state"]["brightness"] < 1
    assert strip["capability"]["cap"].product.pid == 32 and strip["capability"]["cap"].has_multizone
    assert len(strip["zones"]) == 16
    assert all(color.saturation == pytest.approx(strip["state"]["saturation"], abs=0.001)
               for _, color in strip["zones"])
    assert strip["firmware"].version_major == 3 and strip["firmware"].version_minor == 90
    # A bulb without zones: photons skips the plan.
    assert left["zones"] is Skip and not left["capability"]["cap"].has_multizone
    # What photons reads is what the scope protocol shows.
    scope = light_scope(lumend, BULBS["Bedside Left"])
    assert (left["state"]["power"] != 0) == lumend.get("isOn", in_scope=scope)
    assert left["state"]["brightness"] * 100 == pytest.approx(lumend.get("brightness", in_scope=scope), abs=0.01)


@pytest.mark.lumend(args=LIFX_ARGS)
def test_the_transformer_turns_a_bulb_on_with_a_colour_and_a_brightness(lumend):
    scope = light_scope(lumend, BULBS["Bedside Left"])
    assert lumend.get("isOn", in_scope=scope) is False

    async def program(sender):
        serial, _ = (await by_label(sender))["Bedside Left"]
        # As photons' Transformer says it works: the bulb is off, so it reads the colour, sets the new colour at
        # brightness 0 (SetWaveformOptional, which lumend takes as its dimmest level), turns the bulb on over the
        # duration (SetLightPower) and brings the brightness up over the same duration (SetWaveformOptional).
        await sender(Transformer.using({"power": "on", "color": "red", "brightness": 0.5, "duration": 1}), serial)
        return serial

    serial = run_photons(lumend, program)
    lumend.settle()
    assert lumend.get("isOn", in_scope=scope) is True
    assert lumend.get("brightness", in_scope=scope) == pytest.approx(50, abs=0.001)  # 32768 of 65535
    x, y = lumend.get("color", in_scope=scope)["x"], lumend.get("color", in_scope=scope)["y"]
    assert x > 0.6 and y < 0.35, "red"
    changes = [(record["change"], record["transitionMs"])
               for record in lumend.commands(light=BULBS["Bedside Left"]) if record["outcome"] == "applied"]
    # photons sends a message again when its acknowledgement is slow to come (after 0.2 s of real time): the same
    # change twice in a row is one message.
    changes = [change for index, change in enumerate(changes) if index == 0 or change != changes[index - 1]]
    assert [transition for _, transition in changes] == [0, 1000, 1000]
    assert changes[1][0] == {"isOn": True}

    async def read_back_then_white(sender):
        async for pkt in sender(LightMessages.GetColor(), serial):
            before = (pkt.hue, pkt.saturation, pkt.brightness, pkt.power)
        # On already: a white at a quarter, without the power, is one SetWaveformOptional.
        await sender(Transformer.using({"color": "kelvin:2700", "brightness": 0.25}), serial)
        async for pkt in sender(LightMessages.GetColor(), serial):
            after = (pkt.saturation, pkt.brightness, pkt.kelvin, pkt.power)
        return before, after

    before, after = run_photons(lumend, read_back_then_white)
    hue, saturation, brightness, power = before
    assert (round(hue), saturation, power) == (0, 1, 65535)
    assert brightness == pytest.approx(0.5, abs=0.0001)
    lumend.settle()
    assert lumend.get("colorTemperature", in_scope=scope) == 370
    assert lumend.get("brightness", in_scope=scope) == pytest.approx(25, abs=0.001)  # 16384 of 65535
    saturation, brightness, kelvin, power = after
    assert saturation == 0 and kelvin == pytest.approx(2700, abs=5) and power == 65535


@pytest.mark.lumend(args=LIFX_ARGS)
def test_the_transformer_turns_a_bulb_off_over_a_duration(lumend):
    scope = light_scope(lumend, BULBS["Bedside Right"])
    lumend.set("isOn", True, in_scope=scope, wait=False)
    lumend.settle()

    async def program(sender):
        serial, _ = (await by_label(sender))["Bedside Right"]
        await sender(Transformer.using({"power": "off", "duration": 2}), serial)

    run_photons(lumend, program)
    lumend.settle()
    assert lumend.get("isOn", in_scope=scope) is False
    assert lumend.commands(light=BULBS["Bedside Right"])[-1]["transitionMs"] == 2000


@pytest.mark.lumend(args=LIFX_ARGS)
def test_zones_set_while_a_strip_fades_on_are_kept(lumend):
    red, blue = (0, 1, 1), (250, 1, 1)

    async def zones(sender, serial):
        async for pkt in sender(MultiZoneMessages.GetExtendedColorZones(), serial):
            return [(round(color.hue), color.saturation, color.brightness) for color in pkt.colors[:pkt.colors_count]]

    async def program(sender):
        serial, _ = (await by_label(sender))["TV Lightstrip"]
        # On over 10 s (SetLightPower), then half red and half blue (SetExtendedColorZones) while it fades on.
        await sender(Transformer.using({"power": "on", "duration": 10}), serial)
        await sender(SetZones([["red", 8], ["blue", 8]], power_on=False, duration=0), serial)
        return serial, await zones(sender, serial)

    serial, shown = run_photons(lumend, program)
    assert shown == [red] * 8 + [blue] * 8
    lumend.settle()
    assert run_photons(lumend, lambda sender: zones(sender, serial)) == [red] * 8 + [blue] * 8
