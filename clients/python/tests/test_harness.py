"""The plugin's fronts and the clients' assertions: what a test of someone else's code leans on."""

import asyncio
import json
import pathlib
import re
import socket
import urllib.request

import pytest

from lumen import AsyncClient, Client, LumenError, Timeout

# These tests step the clock themselves: nothing moves until they do.
pytestmark = pytest.mark.lumend(clock="virtual")

DOCS = pathlib.Path(__file__).parents[3] / "docs" / "testing.md"


def lab_lamp(lumend) -> int:
    return lumend.open("light", in_scope=lumend.open("room", configuration="lab"), configuration="lab.lamp")


@pytest.mark.lumend(hue=True, lifx=True)
def test_the_fronts_are_on_free_ports_with_a_paired_user(lumend):
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", lumend.hue_url) and not lumend.hue_url.endswith(":0")
    with urllib.request.urlopen(f"{lumend.hue_url}/api/{lumend.hue_user}/config") as reply:
        assert lumend.hue_user in json.load(reply)["whitelist"]
    addresses = lumend.lifx_addresses
    assert addresses == {
        "living-room.tv-strip": ("127.0.0.10", addresses["living-room.tv-strip"][1]),
        "bedroom.bedside-left": ("127.0.0.11", addresses["living-room.tv-strip"][1]),
        "bedroom.bedside-right": ("127.0.0.12", addresses["living-room.tv-strip"][1]),
    }
    assert addresses["living-room.tv-strip"][1] != 0


@pytest.mark.lumend(lifx="127.0.0.40")
def test_the_lifx_bulbs_start_from_the_address_the_marker_gives(lumend):
    assert [host for host, _ in lumend.lifx_addresses.values()] == ["127.0.0.40", "127.0.0.41", "127.0.0.42"]
    assert lumend.hue_url is None and lumend.hue_user is None


@pytest.mark.lumend(args=["--http", "127.0.0.1:0"])
def test_a_front_started_by_args_is_known_too_but_pairs_nobody(lumend):
    assert lumend.hue_url.startswith("http://127.0.0.1:") and lumend.hue_user is None
    assert lumend.lifx_addresses == {}


@pytest.mark.lumend(fixture="homes/lab.json")
def test_a_failing_assert_state_reads_as_docs_testing_md_shows(lumend):
    lumend.set_state(lab_lamp(lumend), isOn=True, brightness=30, wait=False)
    lumend.settle()
    with pytest.raises(AssertionError) as failure:
        lumend.assert_state("lab.lamp", isOn=True, brightness=50)
    shown = DOCS.read_text().split("A failing `assert_state` reads:\n\n```\n")[1].split("\n```")[0]
    assert f"AssertionError: {failure.value}" == shown


@pytest.mark.lumend(fixture="homes/lab.json")
def test_assert_command_says_what_it_looked_for_and_what_came(lumend):
    lamp = lab_lamp(lumend)
    for brightness in range(1, 8):
        lumend.set("brightness", brightness, in_scope=lamp, wait=False)
    lumend.settle()
    assert lumend.assert_command("lab.lamp", {"brightness": 7}, source="session 1")["number"] == 7
    with pytest.raises(AssertionError) as failure:
        lumend.assert_command("lab.lamp", {"brightness": 8}, source="hue", outcome="applied")
    message = str(failure.value)
    assert message.startswith(
        "expected a command to lab.lamp asking exactly brightness=8 from hue, applied; none came\n"
        "lab.lamp shows isOn=False, brightness=7\n"
        "the last 5 of the 7 commands lab.lamp received:\n"
        "  #3 at 0 ms from session 1: brightness=3, applied\n"
    ), message
    with pytest.raises(AssertionError, match=r"expected 2 × a command to lab.lamp asking exactly brightness=7; 1 came"):
        lumend.assert_command("lab.lamp", {"brightness": 7}, count=2)
    with pytest.raises(AssertionError, match="no-such-light"):
        lumend.assert_command("no-such-light")


@pytest.mark.lumend(fixture="homes/lab.json")
def test_a_change_asked_is_matched_whole_not_in_part(lumend):
    lumend.set_state(lab_lamp(lumend), isOn=True, brightness=30, transition_ms=500, wait=False)
    lumend.settle()
    lumend.assert_command("lab.lamp", {"isOn": True, "brightness": 30.0}, transition_ms=500)
    with pytest.raises(AssertionError, match="asking exactly isOn=True; none came"):
        lumend.assert_command("lab.lamp", {"isOn": True})


@pytest.mark.lumend(fixture="homes/lab.json")
def test_wait_for_commands_returns_once_they_are_recorded_and_says_what_came_when_they_do_not(lumend):
    lumend.set("isOn", True, in_scope=lab_lamp(lumend), wait=False)
    [record] = lumend.wait_for_commands(1, light="lab.lamp")
    assert record["outcome"] == "pending"
    with pytest.raises(Timeout) as failure:
        lumend.wait_for_commands(2, light="lab.lamp", source="lifx", within=0.05)
    assert str(failure.value) == (
        "waited 0.05 s for 2 commands to lab.lamp from lifx; the record holds 0\nlab.lamp from lifx received no command"
    )


@pytest.mark.lumend(fixture="homes/lab.json")
def test_clear_commands_empties_the_record_and_reset_keeps_it(lumend):
    lamp = lab_lamp(lumend)
    lumend.set("isOn", True, in_scope=lamp, wait=False)
    lumend.settle()
    lumend.reset()
    assert len(lumend.commands()) == 1
    lumend.set("brightness", 10, in_scope=lab_lamp(lumend), wait=False)
    # From another session: on this one, the answer would wait behind the write, answered once the clock moves.
    with Client.connect(lumend.path) as other:
        assert other.clear_commands() == 2
    lumend.settle()   # the one pending as the record was cleared is not recorded when it settles
    assert lumend.commands() == []
    lumend.assert_command("lab.lamp", count=0)


@pytest.mark.lumend(fixture="homes/lab.json")
def test_the_async_client_asserts_alike(lumend):
    async def check():
        client = await AsyncClient.connect(lumend.path)
        try:
            simulation = await client.open("simulation")
            await client.call("setReachable", {"light": "lab.lamp", "reachable": False}, in_scope=simulation)
            room = await client.open("room", configuration="lab")
            lamp = await client.open("light", in_scope=room, configuration="lab.lamp")
            await client.simulation()  # opened before the write: after it, its answer would wait behind it
            sent = asyncio.create_task(client.set("isOn", True, in_scope=lamp))
            await client.wait_for_commands(1, light="lab.lamp")
            await client.settle()
            with pytest.raises(LumenError):
                await sent
            await client.assert_command("lab.lamp", {"isOn": True}, outcome="unreachable")
            with pytest.raises(AssertionError, match=r"lab.lamp shows isOn=False, brightness=40 \(unreachable\)"):
                await client.assert_state("lab.lamp", isOn=True)
            assert await client.clear_commands() == 1
        finally:
            await client.close_connection()

    asyncio.run(check())


@pytest.mark.lumend(fixture="homes/lab.json", clock="auto")
def test_waiting_for_commands_waits_in_real_time_and_leaves_the_clock_that_runs_itself_alone(lumend):
    # Under the plugin's clock that runs itself, time.sleep sleeps on the simulation: the wait must not.
    with pytest.raises(Timeout):
        lumend.wait_for_commands(1, within=0.05)
    assert lumend.get("clock", in_scope=lumend.simulation())["nowMs"] == 0


@pytest.mark.lumend(hue=True)
def test_a_reset_takes_back_what_the_hue_bridge_kept_and_keeps_the_plugins_user(lumend):
    def hue(method, path, body=None):
        request = urllib.request.Request(
            f"{lumend.hue_url}/api/{lumend.hue_user}{path}", method=method,
            data=None if body is None else json.dumps(body).encode(),
        )
        with urllib.request.urlopen(request) as reply:
            return json.load(reply)

    created = hue("POST", "/groups", {"name": "Reading", "lights": []})
    number = created[0]["success"]["id"]
    assert number in hue("GET", "/groups")
    lumend.reset()
    # The group an app created goes with the reset; the plugin's user stays paired, so the test goes on.
    assert number not in hue("GET", "/groups")
    assert lumend.hue_user in hue("GET", "/config")["whitelist"]
