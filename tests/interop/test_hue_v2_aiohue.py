"""aiohue's HueBridgeV2 (Home Assistant's Hue library, its API v2 path) against lumend's bridge over HTTPS.

lumend runs on the real clock here, so that aiohue's own waits and the event stream's promptness are measured as
a client sees them.
"""

import asyncio
import time

import pytest
from aiohue import HueBridgeV2
from aiohue.errors import AiohueException
from aiohue.util import create_app_key

from conftest import HTTPS_ARGS, https_address, light_scope

pytestmark = pytest.mark.lumend(args=HTTPS_ARGS, clock="real")


def paired(lumend) -> tuple[str, str]:
    lumend.call("pressLinkButton", in_scope=lumend.simulation())
    address = https_address(lumend)
    return address, asyncio.run(create_app_key(address, "lumen-interop#aiohue-v2"))


async def wait_for(condition, timeout: float = 5.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        await asyncio.sleep(0.01)


def test_initialize_lists_every_light_room_and_scene(lumend):
    address, key = paired(lumend)

    async def read():
        async with HueBridgeV2(address, key) as bridge:
            lights = sorted(light.metadata.name for light in bridge.lights)
            rooms = sorted(room.metadata.name for room in bridge.groups.room)
            v1 = sorted(light.id_v1 for light in bridge.lights)
            # The home holds the rooms and every device in none of them: the bridge's own.
            home = {child.rid for item in bridge.config.bridge_home for child in item.children}
            assert home == {room.id for room in bridge.groups.room} | {bridge.config.bridge_device.id}
            return bridge.bridge_id, lights, rooms, v1, len(bridge.devices.items), len(bridge.groups.grouped_light.items)

    bridge_id, lights, rooms, v1, devices, grouped = asyncio.run(read())
    assert bridge_id and len(bridge_id) == 16
    assert lights and v1 == sorted(v1) and all(link.startswith("/lights/") for link in v1)
    assert rooms
    assert devices == len(lights) + 1  # the bridge is a device too
    assert grouped == len(rooms) + 1  # one for each room and one for the whole home


def test_each_light_s_device_names_its_maker_as_a_bridge_does(lumend):
    """Signify's lights by the name a bridge gives Signify, another maker's by its own, as aiohue reads them."""
    address, key = paired(lumend)

    async def read():
        async with HueBridgeV2(address, key) as bridge:
            return [
                (device.product_data.certified, device.product_data.manufacturer_name)
                for device in bridge.devices
                if device.id != bridge.config.bridge_device.id
            ]

    makers = asyncio.run(read())
    signify = {maker for certified, maker in makers if certified}
    others = {maker for certified, maker in makers if not certified}
    assert signify == {"Signify Netherlands B.V."}, makers
    assert others and "Signify Netherlands B.V." not in others, makers


def test_the_bridge_s_device_has_its_zigbee_connectivity(lumend):
    """aiohue finds the bridge's own Zigbee radio by its device, as on a bridge."""
    address, key = paired(lumend)

    async def read():
        async with HueBridgeV2(address, key) as bridge:
            zigbee = bridge.devices.get_zigbee_connectivity(bridge.config.bridge_device.id)
            return zigbee and (zigbee.id_v1, zigbee.status.value, zigbee.mac_address)

    found = asyncio.run(read())
    assert found and found[:2] == ("", "connected") and found[2].startswith("00:17:88:01:"), found


def test_a_white_ambiance_light_lists_the_range_a_bridge_lists_for_one(lumend):
    """A Hue White Ambiance light 153–454 mireds, a Hue colour light 153–500, as aiohue reads mirek_schema."""
    address, key = paired(lumend)

    async def read():
        async with HueBridgeV2(address, key) as bridge:
            signify = {device.id for device in bridge.devices if device.product_data.certified}
            return {
                light.metadata.name: (
                    light.supports_color,
                    light.color_temperature.mirek_schema.mirek_minimum,
                    light.color_temperature.mirek_schema.mirek_maximum,
                )
                for light in bridge.lights
                if light.owner.rid in signify and light.supports_color_temperature
            }

    ranges = asyncio.run(read())
    assert ranges["Floor Lamp"] == (False, 153, 454), ranges
    assert ranges["Ceiling"] == (True, 153, 500), ranges
    assert all(high == (500 if colour else 454) for colour, _, high in ranges.values()), ranges


def test_a_light_switches_dims_and_colours(lumend):
    address, key = paired(lumend)

    async def drive_light():
        async with HueBridgeV2(address, key) as bridge:
            light = next(light for light in bridge.lights if light.supports_color)
            await wait_for(lambda: bridge.events.connected)
            # At once: switching off during a fade keeps the level the fade had reached, not the one asked for.
            await bridge.lights.set_brightness(light.id, 42, transition_time=0)
            await wait_for(lambda: bridge.lights[light.id].on.on and bridge.lights[light.id].dimming.brightness == 42)
            await bridge.lights.set_color(light.id, 0.3, 0.35, transition_time=0)
            await wait_for(lambda: abs(bridge.lights[light.id].color.xy.x - 0.3) < 1e-6)
            await bridge.lights.turn_off(light.id)
            await wait_for(lambda: not bridge.lights[light.id].on.on)
            return light.id_v1, light.metadata.name

    id_v1, _ = asyncio.run(drive_light())
    # What aiohue was told is what the home holds: the light found by its v1 number in the bridge's record.
    home = lumend.call("snapshot", in_scope=lumend.simulation())
    number = int(id_v1.rsplit("/", 1)[1])
    lumen_id = next(light for light, n in home["hue"]["lights"].items() if n == number)
    lumen_light = next(entry for room in home["rooms"] for entry in room["lights"] if entry["id"] == lumen_id)
    assert lumen_light["state"]["isOn"] is False
    assert lumen_light["state"]["brightness"] == 42


def test_a_command_that_may_not_have_effect_is_raised_with_the_bridges_words(lumend):
    """A light that is off, told to go off again, is a command a bridge takes and answers with a warning (207):
    aiohue raises it, in the words Home Assistant looks for to log it and go on."""
    address, key = paired(lumend)

    async def off_twice():
        async with HueBridgeV2(address, key) as bridge:
            light = next(light for light in bridge.lights if light.supports_color)
            await bridge.lights.turn_on(light.id)
            await wait_for(lambda: bridge.lights[light.id].on.on)
            await bridge.lights.turn_off(light.id)
            await wait_for(lambda: not bridge.lights[light.id].on.on)
            try:
                await bridge.lights.turn_off(light.id)
            except AiohueException as error:
                return str(error)
            return None

    raised = asyncio.run(off_twice())
    assert raised is not None and "may not have effect" in raised, raised


def test_a_scene_is_made_and_recalled(lumend):
    address, key = paired(lumend)

    async def scene():
        async with HueBridgeV2(address, key) as bridge:
            room = next(iter(bridge.groups.room))
            lights = [light for light in bridge.lights if any(child.rid == light.owner.rid for child in room.children)]
            assert lights
            # A bridge tells a stream of what happens after it connected, so the test waits for it.
            await wait_for(lambda: bridge.events.connected)
            body = {
                "type": "scene", "metadata": {"name": "Interop"}, "group": {"rid": room.id, "rtype": "room"},
                "actions": [{"target": {"rid": light.id, "rtype": "light"},
                             "action": {"on": {"on": True}, "dimming": {"brightness": 30.0}}} for light in lights],
            }
            made = await bridge.request("post", "clip/v2/resource/scene", json=body)
            scene_id = made[0]["rid"]
            await wait_for(lambda: scene_id in bridge.scenes)
            await bridge.scenes.recall(scene_id)
            await wait_for(lambda: all(bridge.lights[light.id].on.on for light in lights))
            return sorted(scene.metadata.name for scene in bridge.scenes)

    assert "Interop" in asyncio.run(scene())


def test_a_scene_s_recall_in_either_form_is_tracked_in_the_mode_asked(lumend):
    """aiohue's scene tracker reads a group's scene, its mode (`static`, `dynamic_palette`) and when it was
    recalled from the scene's `status`; its `RecallFeature` still offers the API's older `status` form."""
    from aiohue.v2.models.feature import RecallFeature
    from aiohue.v2.models.scene import ScenePut, SceneActiveStatus
    from aiohue.v2.scene_activity import SceneActivityTracker

    address, key = paired(lumend)

    async def recall():
        async with HueBridgeV2(address, key) as bridge:
            room = next(iter(bridge.groups.room))
            lights = [light for light in bridge.lights if any(child.rid == light.owner.rid for child in room.children)]
            await wait_for(lambda: bridge.events.connected)
            body = {
                "type": "scene", "metadata": {"name": "Tracked"}, "group": {"rid": room.id, "rtype": "room"},
                "actions": [{"target": {"rid": light.id, "rtype": "light"},
                             "action": {"on": {"on": True}, "dimming": {"brightness": 60.0}}} for light in lights],
            }
            scene_id = (await bridge.request("post", "clip/v2/resource/scene", json=body))[0]["rid"]
            await wait_for(lambda: scene_id in bridge.scenes)
            tracker = SceneActivityTracker(bridge.scenes)
            tracker.start()
            state = tracker.get_group_state(room.id)
            await bridge.scenes.scene.update(scene_id, ScenePut(recall=RecallFeature(status="active")))
            await wait_for(lambda: state.scene_mode == SceneActiveStatus.STATIC)
            assert state.scene_id == scene_id and state.scene_last_recall is not None
            assert all(bridge.lights[light.id].on.on for light in lights)
            await asyncio.sleep(1.1)  # the bridge takes one group command a second
            await bridge.scenes.recall(scene_id, dynamic=True)
            await wait_for(lambda: state.scene_mode == SceneActiveStatus.DYNAMIC_PALETTE)
            assert state.scene_id == scene_id

    asyncio.run(recall())


def test_a_change_over_the_scope_protocol_is_an_event_within_200_ms(lumend):
    address, key = paired(lumend)

    async def listen():
        async with HueBridgeV2(address, key) as bridge:
            light = next(iter(bridge.lights))
            heard = asyncio.get_running_loop().create_future()

            def event(event_type, item):
                if getattr(item, "id", None) == light.id and not heard.done():
                    heard.set_result(time.monotonic())

            bridge.lights.subscribe(event)
            # Connected is answered 200, which the bridge sends once it looks: every change from now on is told.
            await wait_for(lambda: bridge.events.connected)
            # The light's ID in Lumen, found by its v1 number in the bridge's record.
            home = lumend.call("snapshot", in_scope=lumend.simulation())
            number = int(light.id_v1.rsplit("/", 1)[1])
            lumen_id = next(each for each, n in home["hue"]["lights"].items() if n == number)
            scope = light_scope(lumend, lumen_id)
            was_on = bridge.lights[light.id].on.on
            sent = time.monotonic()
            await asyncio.to_thread(lumend.set, "isOn", not was_on, scope)
            heard_at = await asyncio.wait_for(heard, 5)
            return heard_at - sent, bridge.lights[light.id].on.on == (not was_on)

    delay, applied = asyncio.run(listen())
    assert applied
    assert delay < 0.2, f"the event came {delay * 1000:.0f} ms after the change"


def test_a_sunrise_is_heard_running_and_over_and_no_effect_stops_one(lumend):
    """Timed effects as Home Assistant sends them through aiohue: a light that takes a colour temperature lists
    sunrise and sunset; a short sunrise is heard running, then over with the light at full brightness; a long one
    stopped with no_effect stays where it stood."""
    address, key = paired(lumend)
    from aiohue.v2.models.feature import TimedEffectStatus

    async def run():
        async with HueBridgeV2(address, key) as bridge:
            light = next(light for light in bridge.lights if light.supports_color_temperature)
            assert [value.value for value in light.timed_effects.status_values] == ["no_effect", "sunrise", "sunset"]
            await wait_for(lambda: bridge.events.connected)
            heard = []

            def event(event_type, item):
                if getattr(item, "id", None) == light.id and item.timed_effects:
                    heard.append(item.timed_effects.status.value)

            bridge.lights.subscribe(event)
            await bridge.lights.set_state(light.id, on=True, effect=TimedEffectStatus.SUNRISE, transition_time=1000)
            await wait_for(lambda: "sunrise" in heard and heard[-1] == "no_effect")
            assert bridge.lights[light.id].dimming.brightness == 100
            await bridge.lights.set_state(light.id, on=True, effect=TimedEffectStatus.SUNRISE, transition_time=600_000)
            await wait_for(lambda: bridge.lights[light.id].timed_effects.status == TimedEffectStatus.SUNRISE)
            await asyncio.sleep(0.3)
            await bridge.lights.set_state(light.id, effect=TimedEffectStatus.NO_EFFECT)
            await wait_for(lambda: bridge.lights[light.id].timed_effects.status == TimedEffectStatus.NO_EFFECT)
            return light.id_v1

    id_v1 = asyncio.run(run())
    home = lumend.call("snapshot", in_scope=lumend.simulation())
    lumen_id = next(light for light, n in home["hue"]["lights"].items() if n == int(id_v1.rsplit("/", 1)[1]))
    truth = lumend.device(lumen_id)
    assert truth["fading"] == [] and truth["state"]["isOn"] and truth["state"]["brightness"] < 5, truth


def test_a_short_flash_identifies_a_light_and_every_light_of_a_room(lumend):
    """Home Assistant's `flash: short`: aiohue identifies the light's device, or each device of a room's lights."""
    address, key = paired(lumend)
    home = lumend.call("snapshot", in_scope=lumend.simulation())
    by_number = {n: light for light, n in home["hue"]["lights"].items()}

    async def flash():
        async with HueBridgeV2(address, key) as bridge:
            light = next(light for light in bridge.lights if light.supports_dimming)
            await bridge.lights.set_flash(light.id, short=True)
            # The light breathes for about a second: read at once.
            lumen_id = by_number[int(light.id_v1.rsplit("/", 1)[1])]
            breathing = lumend.get("effect", in_scope=light_scope(lumend, lumen_id))
            room = next(group for group in bridge.groups.grouped_light if group.owner.rtype.value == "room")
            await bridge.groups.grouped_light.set_flash(room.id, short=True)
            return breathing

    assert asyncio.run(flash()) == "breathe"


def test_the_keepalive_geofence_client_is_made_renamed_and_heard_on_the_stream(lumend):
    """aiohue keeps its event stream alive by renaming a geofence client it made every minute: each change must
    come back to it as an event, or it takes the stream for dead after 90 s of silence."""
    from aiohue.v2.models.geofence_client import GeofenceClientPost, GeofenceClientPut

    address, key = paired(lumend)

    async def keepalive():
        async with HueBridgeV2(address, key) as bridge:
            await wait_for(lambda: bridge.events.connected)
            clients = bridge.sensors.geofence_client
            await clients.create(GeofenceClientPost(name="aiohue_", is_at_home=False))
            await wait_for(lambda: any(client.name == "aiohue_" for client in clients.items))
            made = next(client for client in clients.items if client.name == "aiohue_")
            await clients.update(made.id, GeofenceClientPut(name="aiohue_abcdefghij", is_at_home=False))
            await wait_for(lambda: clients[made.id].name == "aiohue_abcdefghij")
            return made.id

    made = asyncio.run(keepalive())
    # Kept in the bridge's record, as a bridge keeps it.
    home = lumend.call("snapshot", in_scope=lumend.simulation())
    assert [(client["id"], client["name"]) for client in home["hue"]["geofenceClients"]] == [(made, "aiohue_abcdefghij")]
