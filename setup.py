"""Build hook: with DIFFER_COMPILE=1 the six modules that turn a page into Markdown are compiled to C by
mypyc (`make` does this; see the README's Dependencies section). Without it differ installs as plain Python,
which gives the same output more slowly."""

import os

from setuptools import setup

COMPILED = [
    "differ/normalize/html.py",
    "differ/normalize/marks.py",
    "differ/normalize/mdescape.py",
    "differ/normalize/root.py",
    "differ/normalize/tree.py",
    "differ/normalize/writer.py",
]

if os.environ.get("DIFFER_COMPILE"):
    from mypyc.build import mypycify

    setup(ext_modules=mypycify(COMPILED, opt_level="3", group_name="differ_compiled"))
else:
    setup()
