"""neuralis-build: the build and packaging toolchain for Neuralis packages."""

__version__ = "0.1.0"
