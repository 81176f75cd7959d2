"""npm and the registries: running npm, npm's lock, the registries it fetches from, tarball downloads, the
image lock and npm's files in the image.
"""
