"""Colours as people write them, turned into what lights take: mireds and CIE 1931 xy (as lumenctl does).

A colour temperature in kelvin is a million over it in mireds, rounded half away from zero, within 153–500
(6,500–2,000 K). An sRGB colour becomes xy as a Hue bridge computes it: each channel's gamma undone, the
wide-gamut D65 matrix, projected, and clipped into the colour lights' gamut (Hue's gamut C). A light of colour
temperature only takes no xy: `mireds_from_xy` is the temperature nearest a colour (McCamy's approximation).
These compute what `CIEColor` in Swift computes, to the same mired.
"""

from __future__ import annotations

import math

GAMUT = ((0.6915, 0.3083), (0.17, 0.7), (0.1532, 0.0475))
WHITE = (0.3127, 0.3290)


def mireds_from_kelvin(kelvin: float) -> int:
    """Mireds for a colour temperature in kelvin, rounded half away from zero (3,200 K is 313), within
    153–500; a temperature that is not a finite positive number is 500, as in Swift."""
    if not (math.isfinite(kelvin) and kelvin > 0):
        return 500
    return min(max(_rounded(1_000_000 / kelvin), 153), 500)


def mireds_from_xy(x: float, y: float) -> int:
    """The colour temperature nearest a colour, in mireds within 153–500 (McCamy's approximation), for a light
    of colour temperature only: ``colorTemperature=mireds_from_xy(*xy_from_hex("#ff8800"))``."""
    n = (x - 0.3320) / (0.1858 - y)
    return mireds_from_kelvin(449 * n * n * n + 3525 * n * n + 6823.3 * n + 5520.33)


def _rounded(value: float) -> int:
    """`value` rounded half away from zero, as Swift's ``rounded()`` (Python's ``round`` rounds half to even)."""
    whole = math.floor(abs(value))
    return int(math.copysign(whole + 1 if abs(value) - whole >= 0.5 else whole, value))


def xy_from_rgb(red: int, green: int, blue: int) -> tuple[float, float]:
    """The xy of an sRGB colour (each channel an integer 0–255), clipped into the gamut; black is D65 white.
    `ValueError` when a channel is not one."""
    for channel in (red, green, blue):
        if isinstance(channel, bool) or not isinstance(channel, int) or not 0 <= channel <= 255:
            raise ValueError(f"an rgb channel is an integer 0–255, not {channel!r}")

    def linear(channel: int) -> float:
        value = channel / 255
        return ((value + 0.055) / 1.055) ** 2.4 if value > 0.04045 else value / 12.92

    r, g, b = linear(red), linear(green), linear(blue)
    x = r * 0.664511 + g * 0.154324 + b * 0.162028
    y = r * 0.283881 + g * 0.668433 + b * 0.047685
    z = r * 0.000088 + g * 0.072310 + b * 0.986039
    if x + y + z <= 0:
        return WHITE
    return clipped((x / (x + y + z), y / (x + y + z)))


def xy_from_hex(text: str) -> tuple[float, float]:
    """The xy of ``#rrggbb`` (the ``#`` optional); `ValueError` when the text is not one."""
    digits = text[1:] if text.startswith("#") else text
    if len(digits) != 6 or any(c not in "0123456789abcdefABCDEF" for c in digits):
        raise ValueError(f"{text!r} is not a colour like #ff8800")
    value = int(digits, 16)
    return xy_from_rgb(value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF)


def clipped(point: tuple[float, float]) -> tuple[float, float]:
    """`point`, or the nearest point of the gamut when it lies outside."""
    (x, y), (r, g, b) = point, GAMUT

    def cross(o, a, p):
        return (a[0] - o[0]) * (p[1] - o[1]) - (a[1] - o[1]) * (p[0] - o[0])

    if cross(r, g, point) >= 0 and cross(g, b, point) >= 0 and cross(b, r, point) >= 0:
        return point

    def nearest(a, c):
        dx, dy = c[0] - a[0], c[1] - a[1]
        t = min(max(((x - a[0]) * dx + (y - a[1]) * dy) / (dx * dx + dy * dy), 0), 1)
        return (a[0] + t * dx, a[1] + t * dy)

    return min((nearest(r, g), nearest(g, b), nearest(b, r)), key=lambda p: (p[0] - x) ** 2 + (p[1] - y) ** 2)
