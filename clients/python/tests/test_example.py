"""The examples of docs/testing.md, as it shows them."""

import pathlib

import pytest


@pytest.mark.lumend(fixture="homes/lab.json")
def test_a_lamp_turns_on_once_the_clock_moves(lumend):
    lamp = lumend.open("light", in_scope=lumend.open("room", configuration="lab"), configuration="lab.lamp")
    pending = lumend.set("isOn", True, in_scope=lamp, wait=False)   # sent; answered once the lamp applies it
    lumend.settle()                                                 # the clock moves until nothing is pending
    assert pending.result() is True and lumend.get("isOn", in_scope=lamp) is True


@pytest.mark.lumend(fixture="homes/lab.json", seed=7)
def test_an_unreachable_lamp_is_reported(lumend):
    simulation = lumend.open("simulation")
    lumend.call("setReachable", {"light": "lab.lamp", "reachable": False}, in_scope=simulation)
    lamp = lumend.open("light", in_scope=lumend.open("room", configuration="lab"), configuration="lab.lamp")
    assert lumend.get("isReachable", in_scope=lamp) is False


@pytest.mark.lumend(args=["--start", "2026-12-04T22:59:00+01:00"])
def test_the_night_begins(lumend):
    lumend.advance(60_000)
    assert lumend.wall_time().hour == 23


def test_docs_testing_md_shows_exactly_these_tests():
    here = pathlib.Path(__file__)
    docs = (here.parents[3] / "docs" / "testing.md").read_text()
    for shown in docs.split("```python\n")[1:]:
        assert shown.split("\n```")[0] in here.read_text()
