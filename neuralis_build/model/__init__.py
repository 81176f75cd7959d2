"""The typed package model: the ``neuralis`` block as frozen values that carry where they came from.

Light on purpose (no rule tables, no JSON Schema): `ui` reads the declared block through it without
loading the manifest rules, and `check` hands the trust-filtered block to `pack`, `image` and `dev`.
"""
