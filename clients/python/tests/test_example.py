import threading

import pytest

from conftest import LAB


@pytest.mark.lumend(fixture=LAB)
def test_a_lamp_turns_on_once_the_clock_moves(lumend):
    lamp = lumend.open("light", in_scope=lumend.open("room", configuration="lab"), configuration="lab.lamp")
    confirmed = []
    writer = threading.Thread(target=lambda: confirmed.append(lumend.set("isOn", True, in_scope=lamp)))
    writer.start()
    lumend.advance(100)
    writer.join(5)
    assert confirmed == [True] and lumend.get("isOn", in_scope=lamp) is True


@pytest.mark.lumend(fixture=LAB, seed=7)
def test_an_unreachable_lamp_is_reported(lumend):
    # As docs/testing.md shows it.
    simulation = lumend.open("simulation")
    lumend.call("setReachable", {"light": "lab.lamp", "reachable": False}, in_scope=simulation)
    lamp = lumend.open("light", in_scope=lumend.open("room", configuration="lab"), configuration="lab.lamp")
    assert lumend.get("isReachable", in_scope=lamp) is False
