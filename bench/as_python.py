"""Run a module with differ's compiled modules imported from their Python source instead, so the same code can
be measured both ways side by side. Run: python -m bench.as_python MODULE [ARGS…]"""

from __future__ import annotations

import importlib.util
import runpy
import sys
from collections.abc import Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import EXTENSION_SUFFIXES, ModuleSpec, PathFinder
from pathlib import Path
from types import ModuleType


class SourceFirst(MetaPathFinder):
    """Finds differ's modules as usual, but takes a compiled module's .py beside it where there is one."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name != "differ" and not name.startswith("differ."):
            return None
        spec = PathFinder.find_spec(name, path)
        if spec is None or not (spec.origin or "").endswith(tuple(EXTENSION_SUFFIXES)):
            return spec
        source = Path(spec.origin or "").with_name(name.rsplit(".", 1)[-1] + ".py")
        return importlib.util.spec_from_file_location(name, source) if source.exists() else spec


def install() -> None:
    sys.meta_path.insert(0, SourceFirst())


if __name__ == "__main__":
    install()
    module, sys.argv = sys.argv[1], sys.argv[1:]
    runpy.run_module(module, run_name="__main__", alter_sys=True)
