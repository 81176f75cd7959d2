"""Trust tiers and install classes; the host assigns trust by source, never the manifest."""

from __future__ import annotations

from typing import Literal, get_args

Trust = Literal["first-party", "trusted", "untrusted"]
InstallClass = Literal["shipped", "host-dependency", "installed", "project"]

TRUST_TIERS: tuple[Trust, ...] = get_args(Trust)
INSTALL_CLASSES: tuple[InstallClass, ...] = get_args(InstallClass)

_RANK: dict[Trust, int] = {"untrusted": 0, "trusted": 1, "first-party": 2}


def at_least(trust: Trust, floor: Trust) -> bool:
    """True when ``trust`` is ``floor`` or higher (first-party > trusted > untrusted)."""
    return _RANK[trust] >= _RANK[floor]


def trust_for_class(install_class: InstallClass, installed_trust: Trust = "untrusted") -> Trust:
    """The tier the host assigns to an install class (shipped and host-dependency are first-party)."""
    if install_class in ("shipped", "host-dependency"):
        return "first-party"
    if install_class == "project":
        return "untrusted"
    if installed_trust == "first-party":
        raise ValueError("an installed package is trusted or untrusted, never first-party")
    return installed_trust
