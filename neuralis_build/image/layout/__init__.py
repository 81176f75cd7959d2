"""Where the closure goes: the walk of npm's lock from the listed packages, the tiers' layout, and writing it
as hard links to the store.
"""
