"""Fixtures for the packing tests (the helpers live in packtools.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from packtools import write_tree


@pytest.fixture
def tree(tmp_path: Path) -> Callable[..., Path]:
    """``tree({...})`` writes a package into a fresh folder and returns its root."""
    counter = iter(range(10_000))

    def make(files: Mapping[str, Any], name: str | None = None) -> Path:
        return write_tree(tmp_path / (name or f"pkg{next(counter)}"), files)

    return make
