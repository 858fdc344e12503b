"""What the clients' assertions share: matching command records and saying, when one fails, what was expected,
what the light shows and the last commands it received."""

from __future__ import annotations

import math
from typing import Any

# How many of a light's last commands a failure message lists.
SHOWN_COMMANDS = 5


def source_matches(wanted: str | None, source: str) -> bool:
    """Whether a record's `source` is `wanted`: the whole of it (`session 3`), or its kind (`hue`, `lifx`,
    `session`, `HTTP session`), whose tag or number follows a space."""
    return wanted is None or source == wanted or source.startswith(wanted + " ")


def values_equal(expected: Any, actual: Any) -> bool:
    """Equality as a light's values need it: numbers within a thousandth (a brightness of 50.3 is 50.3, not
    50.29999), dictionaries and lists member by member."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return math.isclose(expected, actual, rel_tol=0, abs_tol=1e-3)
    if isinstance(expected, dict) and isinstance(actual, dict):
        return expected.keys() == actual.keys() and all(values_equal(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        return len(expected) == len(actual) and all(values_equal(e, a) for e, a in zip(expected, actual))
    return expected == actual


def record_matches(
    record: dict[str, Any], change: dict[str, Any] | None, source: str | None, outcome: str | None,
    transition_ms: float | None,
) -> bool:
    """Whether a command record is the one described (`None` matches anything)."""
    return (
        (change is None or values_equal(change, record.get("change")))
        and source_matches(source, record.get("source", ""))
        and (outcome is None or record.get("outcome") == outcome)
        and (transition_ms is None or values_equal(transition_ms, record.get("transitionMs")))
    )


def describe_change(change: dict[str, Any]) -> str:
    """`isOn=True, brightness=50.3`: a change or a state as a person reads it."""
    return ", ".join(f"{key}={value!r}" for key, value in change.items()) or "nothing"


def describe_command(record: dict[str, Any]) -> str:
    """One line of the command record: `#4 at 1200 ms from hue 1f52a0c3: isOn=True over 400 ms, applied`."""
    line = f"#{record.get('number')} at {record.get('atMs'):g} ms from {record.get('source') or '(nobody said)'}"
    line += f": {describe_change(record.get('change', {}))}"
    if record.get("transitionMs"):
        line += f" over {record['transitionMs']:g} ms"
    if record.get("room"):
        line += f" (room {record['room']})"
    line += f", {record.get('outcome')}"
    if "code" in record:
        line += f" (code {record['code']})"
    return line


def describe_commands(records: list[dict[str, Any]], whose: str) -> str:
    """The last few of `records`, one a line, under a heading naming `whose` they are."""
    if not records:
        return f"{whose} received no command"
    shown = records[-SHOWN_COMMANDS:]
    heading = f"the last {len(shown)} of the {len(records)} commands {whose} received:"
    if len(shown) == len(records):
        heading = f"the {len(records)} command{'s' if len(records) != 1 else ''} {whose} received:"
    return "\n".join([heading] + [f"  {describe_command(record)}" for record in shown])


def describe_device(device: dict[str, Any]) -> str:
    """What a light shows, from `device`: its state, and what is fading and whether it is unreachable."""
    text = describe_change(device.get("state", {}))
    if device.get("fading"):
        text += f" (fading: {', '.join(device['fading'])})"
    if device.get("reachable") is False:
        text += " (unreachable)"
    return text


def state_differences(expected: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """The members of `expected` that `state` does not have as expected, each with what it has (or `<absent>`)."""
    return {
        key: state.get(key, "<absent>") for key, value in expected.items()
        if key not in state or not values_equal(value, state[key])
    }


def command_description(
    light: str, change: dict[str, Any] | None, source: str | None, outcome: str | None,
    transition_ms: float | None,
) -> str:
    """`a command to kitchen.spot-1 asking isOn=True from hue, applied`: what an assertion looked for."""
    text = f"a command to {light}"
    if change is not None:
        text += f" asking exactly {describe_change(change)}"
    if transition_ms is not None:
        text += f" over {transition_ms:g} ms"
    if source is not None:
        text += f" from {source}"
    if outcome is not None:
        text += f", {outcome}"
    return text


def filtered(records: list[dict[str, Any]], source: str | None) -> list[dict[str, Any]]:
    """The records from `source` (all, when it is `None`)."""
    return [record for record in records if source_matches(source, record.get("source", ""))]


def wait_failure(
    count: int, light: str | None, room: str | None, source: str | None, within: float,
    records: list[dict[str, Any]],
) -> str:
    """Why `wait_for_commands` gave up: how many commands it waited for and which it saw."""
    whose = light or (f"room {room}" if room else "the home")
    if source:
        whose += f" from {source}"
    plural = "s" if count != 1 else ""
    return (
        f"waited {within:g} s for {count} command{plural} to {whose}; the record holds {len(records)}\n"
        + describe_commands(records, whose)
    )


def command_failure(
    light: str, change: dict[str, Any] | None, source: str | None, outcome: str | None,
    transition_ms: float | None, count: int | None, matching: int,
) -> str | None:
    """What `assert_command` expected and did not find, or `None` when it found it."""
    if (count is None and matching) or (count is not None and matching == count):
        return None
    wanted = command_description(light, change, source, outcome, transition_ms)
    if count is None:
        return f"expected {wanted}; none came"
    return f"expected {count} × {wanted}; {matching or 'none'} came"


def state_failure(light: str, expected: dict[str, Any], state: dict[str, Any]) -> str | None:
    """What `assert_state` expected and the light does not show, or `None` when it shows all of it."""
    differences = state_differences(expected, state)
    if not differences:
        return None
    wrong = ", ".join(f"{key} is {value!r}, not {expected[key]!r}" for key, value in differences.items())
    return f"expected {light} to show {describe_change(expected)}; {wrong}"


def light_report(light: str, expected: str, device: dict[str, Any] | Exception, records: list[dict[str, Any]]) -> str:
    """A failed assertion's message: what was expected, what `light` shows, the last commands it received."""
    shows = f"(cannot say: {device})" if isinstance(device, Exception) else describe_device(device)
    return f"{expected}\n{light} shows {shows}\n{describe_commands(records, light)}"
