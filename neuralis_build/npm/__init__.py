"""npm's facts in one place: reading a package.json, the node_modules walk Node does, and package names."""
