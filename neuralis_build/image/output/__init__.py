"""What the build writes beside the tree (the SBOM), the transaction that swaps the image in; image diff and what-if."""
