"""neuralis-build: the build and packaging toolchain for Neuralis packages."""

__version__ = "0.2.0"
