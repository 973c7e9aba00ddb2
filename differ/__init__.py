"""differ: watch release announcements and their mirrors, keep every version, say what changed."""

__version__ = "0.1.0"
