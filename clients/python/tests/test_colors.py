import pytest

from lumen._wire import state_arguments
from lumen.colors import GAMUT, mireds_from_kelvin, mireds_from_xy, xy_from_hex, xy_from_rgb


def test_kelvin_becomes_mireds_within_what_lights_take():
    assert [mireds_from_kelvin(k) for k in (2700, 6500, 1000, 10000, 0)] == [370, 154, 500, 153, 500]


def test_rgb_becomes_xy_as_lumenctl_and_hue_compute_it():
    x, y = xy_from_hex("#FF8800")
    assert abs(x - 0.5975) < 0.001 and abs(y - 0.3789) < 0.001
    assert xy_from_hex("ff8800") == (x, y)
    red = xy_from_rgb(255, 0, 0)
    assert abs(red[0] - GAMUT[0][0]) < 0.01 and abs(red[1] - GAMUT[0][1]) < 0.01
    assert xy_from_rgb(0, 0, 0) == (0.3127, 0.3290)


@pytest.mark.parametrize("text", ["#ff88", "#gg0000", "ff88000", ""])
def test_a_text_that_is_not_a_colour_is_refused(text):
    with pytest.raises(ValueError):
        xy_from_hex(text)


def test_kelvin_rounds_half_away_from_zero_as_swift_does():
    assert mireds_from_kelvin(3200) == 313  # 312.5
    assert mireds_from_kelvin(float("inf")) == 500
    assert mireds_from_kelvin(float("nan")) == 500


@pytest.mark.parametrize("kelvin", [1999, 6501, float("inf"), 0])
def test_a_temperature_lights_cannot_show_is_refused_as_lumenctl_refuses_it(kelvin):
    with pytest.raises(ValueError, match="2000"):
        state_arguments({"kelvin": kelvin}, None)


def test_a_temperature_in_range_becomes_mireds():
    assert state_arguments({"kelvin": 3200}, None) == {"colorTemperature": 313}


@pytest.mark.parametrize("rgb", [(256, 0, 0), (-1, 0, 0), (0.5, 0, 0)])
def test_an_rgb_channel_outside_0_to_255_is_refused(rgb):
    with pytest.raises(ValueError, match="0–255"):
        xy_from_rgb(*rgb)


@pytest.mark.parametrize("color", [(255, 0), (1, 2, 3, 4), []])
def test_a_colour_tuple_of_the_wrong_length_is_refused_clearly(color):
    with pytest.raises(ValueError, match="three channels"):
        state_arguments({"color": color}, None)


def test_the_temperature_nearest_a_colour_is_as_swift_computes_it():
    # CIEColor.white.mireds and CIEColor(hex: "#ff8800").mireds in Swift.
    assert mireds_from_xy(0.3127, 0.3290) == 154
    assert mireds_from_xy(*xy_from_hex("#ff8800")) == 500
