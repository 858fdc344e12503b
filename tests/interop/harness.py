"""What the interoperability tests share: driving a client's blocking call while lumend's virtual clock moves,
and opening a light's scope."""

import threading


def drive(lumend, call, step_ms: float = 50, limit_ms: float = 120_000):
    """Runs `call` on a thread, advancing lumend's virtual clock until it returns; returns what it returned."""
    outcome = {}

    def run():
        try:
            outcome["value"] = call()
        except BaseException as error:  # noqa: BLE001 - handed back to the test
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    advanced = 0.0
    while thread.is_alive() and advanced < limit_ms:
        thread.join(0.02)
        if thread.is_alive():
            lumend.advance(step_ms)
            advanced += step_ms
    thread.join(10)
    assert not thread.is_alive(), f"the client's call did not return within {limit_ms} ms of simulated time"
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def light_scope(lumend, light: str) -> int:
    """A scope on `light`, opened through its room."""
    room = light.split(".")[0]
    return lumend.open("light", in_scope=lumend.open("room", configuration=room), configuration=light)
