"""Packing: npm's file list, its tarball byte for byte, and the checks that refuse a package before it ships."""
