"""The README's Python, run as a reader runs it: a script of its own against a running lumend."""

import os
import pathlib
import re
import subprocess
import sys

README = pathlib.Path(__file__).resolve().parents[3] / "README.md"
PACKAGE = pathlib.Path(__file__).resolve().parents[1]


def test_the_readme_python_example_turns_the_spot_on(lumend):
    section = README.read_text().split("## Use it from Python")[1].split("\n## ")[0]
    [example] = re.findall(r"```python\n(.*?)\n```", section, re.S)
    environment = dict(os.environ, LUMEN_SOCKET=lumend.path, PYTHONPATH=str(PACKAGE))
    script = subprocess.Popen([sys.executable, "-c", example], env=environment, stderr=subprocess.PIPE, text=True)
    try:
        # Its set waits for the spot on the virtual clock: the test moves it once the command has come.
        lumend.wait_for_commands(1, light="kitchen.spot-1", within=30)
        lumend.settle()
        _, stderr = script.communicate(timeout=30)
    finally:
        script.kill()
    assert script.returncode == 0, stderr
    lumend.assert_command("kitchen.spot-1", {"isOn": True}, source="session", outcome="applied")
    lumend.assert_state("kitchen.spot-1", isOn=True)
