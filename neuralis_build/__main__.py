"""`python -m neuralis_build` runs `neuralis-build`."""

from neuralis_build.cli.build import main

raise SystemExit(main())
