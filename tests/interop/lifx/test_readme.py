"""The README's commands for the Hue bridge and the LIFX bulbs, run as a reader runs them: aiohue and lifxlan as
pip installs them, against a lumend on the real clock, as `make run` starts it. Only the bridge's port is this
test's own (a free one, not the README's 8080); the bulbs are on the README's 127.0.0.10:56700, which this
network namespace keeps to itself."""

import pathlib
import re
import shlex
import subprocess
import sys

import pytest

README = pathlib.Path(__file__).resolve().parents[3] / "README.md"


def readme_command(program: str, *, containing: str) -> list[str]:
    """The README's command that runs `program` with `containing` in it, split as a shell splits it."""
    section = README.read_text().split("## Drive it as a Hue bridge")[1].split("\n## ")[0]
    lines = [line for block in re.findall(r"```sh\n(.*?)\n```", section, re.S) for line in block.splitlines()]
    [line] = [line for line in lines if line.startswith(program) and containing in line]
    return shlex.split(line.split("  #")[0])


@pytest.mark.lumend(hue=True, clock="real", args=["--lifx", "127.0.0.10:56700"])
def test_the_readme_pairs_an_app_with_the_bridge_and_finds_the_bulbs(lumend):
    lumend.call("pressLinkButton", in_scope=lumend.simulation())  # the README's lumenctl sim link-button
    pair = readme_command(".venv/bin/python", containing="create_app_key")
    bridge = lumend.hue_url.removeprefix("http://")
    pair = [sys.executable] + [word.replace("127.0.0.1:8080", bridge) for word in pair[1:]]
    paired = subprocess.run(pair, capture_output=True, text=True, timeout=60)
    assert paired.returncode == 0 and re.fullmatch(r"[0-9a-f]{40}\n", paired.stdout), paired.stderr
    find = [sys.executable] + readme_command(".venv/bin/python", containing="LifxLAN")[1:]
    found = subprocess.run(find, capture_output=True, text=True, timeout=60)
    assert found.returncode == 0, found.stderr
    bulbs = "[('TV Lightstrip', '127.0.0.10'), ('Bedside Left', '127.0.0.11'), ('Bedside Right', '127.0.0.12')]"
    assert found.stdout == bulbs + "\n"
