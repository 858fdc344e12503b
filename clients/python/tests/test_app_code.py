"""Ordinary application code, unchanged, on the plugin's clock that runs itself: it sends commands and waits for
their answers, and sleeps between polls, and the simulation's time moves only as far as it waits."""

import asyncio
import datetime
import json
import time

import pytest

from lumen import Client
from lumen.pytest_plugin import lumend_binary, simulated_time, start, time_machine

# The demo home's lights have real latencies (tens to hundreds of milliseconds) drawn from the seed.
pytestmark = pytest.mark.lumend(seed=4, args=["--start", "2026-12-04T22:55:30+01:00"])


def dim_the_kitchen(client: Client, brightness: float) -> float:
    """Application code: sets a light and waits for the light to confirm it."""
    kitchen = client.open("room", configuration="kitchen")
    spot = client.open("light", in_scope=kitchen, configuration="kitchen.spot-1")
    return client.set("brightness", brightness, in_scope=spot)


def lights_out_at_eleven(client: Client) -> int:
    """Application code: polls every minute until 23:00, then turns the kitchen off; returns how many polls."""
    polls = 0
    while client.wall_time().hour < 23:
        polls += 1
        time.sleep(60)
    client.call("setAll", {"isOn": False}, in_scope=client.open("room", configuration="kitchen"))
    return polls


def test_a_set_is_answered_without_the_test_moving_the_clock(lumend):
    assert dim_the_kitchen(lumend, 30) == 30
    # The clock moved as far as the light took to answer: its latency, no more.
    waited = lumend.commands()[-1]["atMs"]
    assert 0 < lumend.get("clock", in_scope=lumend.simulation())["nowMs"] - waited < 1_000


def test_a_loop_that_polls_every_minute_until_eleven_runs_at_full_speed(lumend):
    began = time.monotonic()
    assert lights_out_at_eleven(lumend) == 5
    assert time.monotonic() - began < 1
    assert lumend.wall_time().strftime("%H:%M") == "23:00"
    assert all(record["change"] == {"isOn": False} for record in lumend.commands()[-2:])


def test_the_same_code_gives_the_same_transcript_on_every_run(request):
    transcripts = []
    for _ in range(3):
        daemon = start(
            lumend_binary(request.config), seed=4, clock="auto", args=["--start", "2026-12-04T22:55:30+01:00"]
        )
        client = Client.connect(daemon.socket_path)
        restore = simulated_time(client, daemon.socket_path)
        try:
            dim_the_kitchen(client, 30)
            dim_the_kitchen(client, 70)
            lights_out_at_eleven(client)
            # The answers' text as lumend wrote them, keys in its order.
            transcripts.append(json.dumps([client.commands(), client.get("clock", in_scope=client.simulation())]))
        finally:
            restore()
            client.close_connection()
            daemon.stop()
    assert '"applied"' in transcripts[0] and transcripts[1] == transcripts[0] and transcripts[2] == transcripts[0]


def lights_out_at_eleven_by_the_system_clock(client: Client) -> int:
    """Application code that reads the time as most does, from `datetime.now()`."""
    polls = 0
    while datetime.datetime.now().hour != 23:
        polls += 1
        time.sleep(60)
    client.call("setAll", {"isOn": False}, in_scope=client.open("room", configuration="kitchen"))
    return polls


@pytest.mark.skipif(time_machine is None, reason="the time-machine package is not installed (make interop runs this)")
def test_code_that_reads_the_system_clock_reads_the_simulated_one(lumend):
    assert lights_out_at_eleven_by_the_system_clock(lumend) == 5
    assert datetime.datetime.now().strftime("%H:%M") == "23:00"
    assert time.strftime("%z") == "+0100"


def test_async_sleepers_wake_in_the_order_of_their_times(lumend):
    async def app() -> list[str]:
        woken: list[str] = []

        async def wait(name: str, seconds: float) -> None:
            await asyncio.sleep(seconds)
            woken.append(name)

        await asyncio.gather(wait("late", 120), wait("early", 60))
        return woken

    began = time.monotonic()
    assert asyncio.run(app()) == ["early", "late"]
    assert time.monotonic() - began < 1
    assert lumend.wall_time().strftime("%H:%M:%S") == "22:57:30"
