"""Spec section: config (not yet written)."""

from __future__ import annotations

from neuralis_build.manifest.engine import Section

SECTION = Section(name="config", fields={})
