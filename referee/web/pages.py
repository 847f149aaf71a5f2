"""The page files shipped with the package (``referee/web/static``)."""

from __future__ import annotations

from importlib import resources


def page(name: str) -> str:
    """The text of ``referee/web/static/NAME``."""
    return resources.files("referee.web").joinpath("static", name).read_text(encoding="utf-8")
