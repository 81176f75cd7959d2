"""The staged tree and its refusal cascade, and the rules across the image's packages."""
