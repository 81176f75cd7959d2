"""Spec section: datalayout (not yet written)."""

from __future__ import annotations

from neuralis_build.manifest.engine import Section

SECTION = Section(name="datalayout", fields={})
