"""`python -m neuralis_build` runs `neuralis-build`."""

from neuralis_build.cli.entry import console

console()
