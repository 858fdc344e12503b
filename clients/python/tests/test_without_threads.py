"""Tests written as a user of the plugin writes them: no threads, the demo home's real latencies, any seed."""

import pytest

from lumen import ErrorCode, LumenError, Timeout

# These tests move the clock themselves: it stands still until they do.
pytestmark = pytest.mark.lumend(clock="virtual")

# The demo home (no fixture given), each seed a lumend of its own.
SEEDS = [pytest.param(seed, marks=pytest.mark.lumend(seed=seed)) for seed in range(1, 51)]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_set_that_waits_for_the_clock_is_settled_without_a_thread(lumend, seed):
    kitchen = lumend.open("room", configuration="kitchen")
    spot = lumend.open("light", in_scope=kitchen, configuration="kitchen.spot-1")
    pending = lumend.set("brightness", 40, in_scope=spot, transition_ms=800, wait=False)
    assert not pending.done()
    settled = lumend.settle()
    assert settled["idle"] is True
    assert pending.result(timeout=5) == 40
    assert lumend.get("brightness", in_scope=spot) == 40


def test_a_set_that_would_wait_forever_times_out_saying_why(lumend):
    spot = lumend.open("light", in_scope=lumend.open("room", configuration="kitchen"), configuration="kitchen.spot-1")
    # Opened first: lumend answers in order, so once the set waits, so would the scope's opening.
    lumend.simulation()
    with pytest.raises(Timeout) as caught:
        lumend.set("brightness", 55, in_scope=spot, timeout=0.2)
    assert "set" in str(caught.value) and "advance" in str(caught.value)
    lumend.settle()


@pytest.mark.lumend(seed=5)
def test_several_properties_as_one_command_on_a_light_that_is_off(lumend):
    bedroom = lumend.open("room", configuration="bedroom")
    ceiling = lumend.open("light", in_scope=bedroom, configuration="bedroom.ceiling")
    lumend.set("isOn", False, in_scope=ceiling, wait=False)
    lumend.settle()
    pending = lumend.set_state(ceiling, isOn=True, brightness=30, wait=False)
    lumend.settle()
    assert pending.result() == {"isOn": True, "brightness": 30}
    record = lumend.commands(light="bedroom.ceiling")[-1]
    assert record["change"] == {"isOn": True, "brightness": 30} and record["outcome"] == "applied"
    assert record["source"].startswith("session ")
    assert [c["outcome"] for c in lumend.commands(room="bedroom")] == ["applied", "applied"]
    pending = lumend.set_state(ceiling, kelvin=2700, wait=False)
    lumend.settle()
    assert pending.result() == {"colorTemperature": 370}
    with pytest.raises(LumenError) as caught:
        lumend.set_state(ceiling, color="#ff8800")
    assert caught.value.code == ErrorCode.NOT_SUPPORTED


@pytest.mark.lumend(fixture="homes/lab.json")
def test_a_fixture_path_is_taken_from_the_test_file(lumend):
    assert lumend.get("name") == "Lab"


@pytest.mark.lumend(fixture="homes/lab.json")
def test_a_suite_can_go_back_to_a_known_state_without_a_restart(lumend):
    lamp = lumend.open("light", in_scope=lumend.open("room", configuration="lab"), configuration="lab.lamp")
    lumend.checkpoint("clean")
    lumend.set_state(lamp, isOn=True, brightness=90, wait=False)
    lumend.settle()
    assert lumend.get("brightness", in_scope=lamp) == 90
    lumend.restore("clean")
    assert lumend.get("brightness", in_scope=lamp) == 40 and lumend.get("isOn", in_scope=lamp) is False
    lumend.set("isOn", True, in_scope=lamp, wait=False)
    lumend.settle()
    lumend.reset()
    assert lumend.get("isOn", in_scope=lamp) is False
    lumend.drop_checkpoint("clean")
    truth = lumend.device("lab.lamp")
    assert truth["light"] == "lab.lamp" and truth["reachable"] is True and truth["fading"] == []
    with pytest.raises(LumenError) as caught:
        lumend.restore("clean")
    assert caught.value.code == ErrorCode.NO_SUCH_ENTITY
