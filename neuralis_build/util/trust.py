"""Trust tiers and install classes; the host assigns trust by source, never the manifest.

``Trust`` is the one type of a tier everywhere: the ``--trust`` option, every field, every comparison.
Its members are in rank order, highest first, and compare by rank (``Trust.TRUSTED >= Trust.UNTRUSTED``);
being a ``str``, each equals its JSON spelling (``Trust.FIRST_PARTY == "first-party"``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, get_args

InstallClass = Literal["shipped", "host-dependency", "installed", "project"]
INSTALL_CLASSES: tuple[InstallClass, ...] = get_args(InstallClass)


class Trust(StrEnum):
    """A tier the host assigns, highest first."""

    FIRST_PARTY = "first-party"
    TRUSTED = "trusted"
    UNTRUSTED = "untrusted"

    @property
    def rank(self) -> int:
        """0 for first-party, then down: the order the image walks its listed packages in."""
        return _ORDER.index(self)

    def at_least(self, floor: Trust | str) -> bool:
        """True when this tier is ``floor`` or higher (first-party > trusted > untrusted)."""
        return self.rank <= Trust(floor).rank

    def __ge__(self, other: object) -> bool:
        return self.at_least(Trust(other)) if isinstance(other, str) else NotImplemented

    def __gt__(self, other: object) -> bool:
        return self != other and self >= other if isinstance(other, str) else NotImplemented

    def __le__(self, other: object) -> bool:
        return Trust(other).at_least(self) if isinstance(other, str) else NotImplemented

    def __lt__(self, other: object) -> bool:
        return self != other and self <= other if isinstance(other, str) else NotImplemented


_ORDER = tuple(Trust)
TRUST_TIERS: tuple[Trust, ...] = _ORDER


def at_least(trust: Trust | str, floor: Trust | str) -> bool:
    """True when ``trust`` is ``floor`` or higher (first-party > trusted > untrusted)."""
    return Trust(trust).at_least(floor)


def trust_for_class(install_class: InstallClass, installed_trust: Trust | str = Trust.UNTRUSTED) -> Trust:
    """The tier the host assigns to an install class (shipped and host-dependency are first-party)."""
    if install_class in ("shipped", "host-dependency"):
        return Trust.FIRST_PARTY
    if install_class == "project":
        return Trust.UNTRUSTED
    if installed_trust == Trust.FIRST_PARTY:
        raise ValueError("an installed package is trusted or untrusted, never first-party")
    return Trust(installed_trust)
