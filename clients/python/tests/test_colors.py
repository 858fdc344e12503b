import pytest

from lumen.colors import GAMUT, mireds_from_kelvin, xy_from_hex, xy_from_rgb


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
