#!/usr/bin/env python3
"""Writes docs/python-api.md, the Python client's API reference, from its docstrings and signatures.

    scripts/python-api.py            # writes docs/python-api.md
    scripts/python-api.py --check    # exits 1, saying so, when docs/python-api.md is not what it would write

Only the public API is listed: the names `lumen` exports, and the pytest plugin's fixture, client and helpers.
A public function or method without a docstring is an error, so the reference never shows an empty entry.
"""

from __future__ import annotations

import inspect
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "clients" / "python"))

import lumen  # noqa: E402
import lumen.colors  # noqa: E402

try:
    import lumen.pytest_plugin as plugin  # noqa: E402
except ImportError:  # pytest is not installed: the plugin is documented from its source all the same
    plugin = None

OUTPUT = ROOT / "docs" / "python-api.md"
HEADER = """# Python API reference

Generated from the docstrings of `clients/python/lumen` by `make python-api` (`scripts/python-api.py`); a test
fails when this file is not what the script writes, so edit the docstrings, not this file. Install the package
with `pip install ./clients/python` (with `"./clients/python[pytest]"` for the pytest plugin); the guides are
[testing.md](testing.md) and [clients/python/README.md](../clients/python/README.md).
"""


def signature(function) -> str:
    """`(a: int, b: str = 'x')` as the source spells its annotations (they are strings here), without `self`."""
    parts = []
    star_shown = False
    for index, parameter in enumerate(inspect.signature(function).parameters.values()):
        if index == 0 and parameter.name in ("self", "cls"):
            continue
        text = parameter.name
        if parameter.kind is parameter.VAR_POSITIONAL:
            text, star_shown = "*" + text, True
        elif parameter.kind is parameter.VAR_KEYWORD:
            text = "**" + text
        elif parameter.kind is parameter.KEYWORD_ONLY and not star_shown:
            parts.append("*")
            star_shown = True
        if parameter.annotation is not parameter.empty:
            text += f": {spelled(parameter.annotation)}"
        if parameter.default is not parameter.empty:
            # A function's repr carries its address, which changes each run: shown as `...`.
            default = "..." if callable(parameter.default) else repr(parameter.default)
            text += f" = {default}" if parameter.annotation is not parameter.empty else f"={default}"
        parts.append(text)
    result = inspect.signature(function).return_annotation
    returns = ""
    if result is not inspect.Signature.empty:
        returns = f" -> {spelled(result)}"
    return f"({', '.join(parts)}){returns}"


MISSING: list[str] = []


def spelled(annotation) -> str:
    """An annotation as the source writes it, without the quotes of a forward reference."""
    if not isinstance(annotation, str):
        return inspect.formatannotation(annotation)
    return annotation.strip("'\"")


def documented(name: str, thing) -> str:
    doc = inspect.getdoc(thing)
    if not doc:
        MISSING.append(name)
    return doc or ""


def function_entry(qualified: str, function, level: str = "###") -> list[str]:
    prefix = "async " if inspect.iscoroutinefunction(function) else ""
    return [f"{level} `{qualified}`", "", "```python", f"{prefix}def {qualified.split('.')[-1]}{signature(function)}",
            "```", "", documented(qualified, function), ""]


def public_members(cls) -> list[tuple[str, object]]:
    """The class's own public methods and properties, in source order (what it inherits is listed with the base)."""
    members = []
    for name, value in vars(cls).items():
        if name.startswith("_") and name != "__init__":
            continue
        if name == "__init__":
            continue
        if isinstance(value, (classmethod, staticmethod)):
            value = value.__func__
        if inspect.isfunction(value) or isinstance(value, property):
            members.append((name, value))
    return members


def class_entry(qualified: str, cls) -> list[str]:
    bases = [base.__name__ for base in cls.__bases__ if base is not object]
    lines = [f"## `{qualified}`" + (f" ({', '.join(bases)})" if bases else ""), "", documented(qualified, cls), ""]
    if issubclass(cls, BaseException) or issubclass(cls, int):
        return lines
    for name, member in public_members(cls):
        if isinstance(member, property):
            lines += [f"### `{qualified}.{name}`", "", documented(f"{qualified}.{name}", member.fget), ""]
        else:
            lines += function_entry(f"{qualified}.{name}", member)
    return lines


def render() -> str:
    lines = [HEADER, "## `lumen`", "", documented("lumen", lumen), ""]
    for name in lumen.__all__:
        thing = getattr(lumen, name)
        if inspect.isclass(thing):
            lines += class_entry(f"lumen.{name}", thing)
        elif inspect.isfunction(thing):
            lines += function_entry(f"lumen.{name}", thing, "##")
        else:
            lines += [f"## `lumen.{name}`", "", f"`{thing!r}`: the root scope, the home, open on every connection.", ""]
    lines += ["## `lumen.colors`", "", documented("lumen.colors", lumen.colors), ""]
    for name, function in inspect.getmembers(lumen.colors, inspect.isfunction):
        if not name.startswith("_") and function.__module__ == "lumen.colors":
            lines += function_entry(f"lumen.colors.{name}", function)
    if plugin is None:
        raise SystemExit("scripts/python-api.py: pytest is needed to document lumen.pytest_plugin")
    lines += ["## `lumen.pytest_plugin`", "", documented("lumen.pytest_plugin", plugin), ""]
    # pytest 8 wraps a fixture's function; pytest 7 marks the function itself.
    lines += function_entry("lumen.pytest_plugin.lumend", getattr(plugin.lumend, "__wrapped__", plugin.lumend), "###")
    for name in ("Lumend", "Daemon"):
        lines += class_entry(f"lumen.pytest_plugin.{name}", getattr(plugin, name))
    for name in ("start", "lumend_binary"):
        lines += function_entry(f"lumen.pytest_plugin.{name}", getattr(plugin, name))
    text = "\n".join(lines)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.rstrip("\n") + "\n"


def main() -> int:
    text = render()
    if MISSING:
        print(f"scripts/python-api.py: no docstring: {', '.join(MISSING)}; give each one", file=sys.stderr)
        return 1
    if sys.argv[1:] == ["--check"]:
        if OUTPUT.exists() and OUTPUT.read_text() == text:
            return 0
        print("docs/python-api.md is not what the docstrings say: run make python-api", file=sys.stderr)
        return 1
    OUTPUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
