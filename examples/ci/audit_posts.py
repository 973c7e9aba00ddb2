"""Audit the translated or mirrored posts a change adds or edits against the originals they name, for a pull
request's CI job: each post whose front matter names its original (`org_link: https://…`) is read as a copy of
it by `differ compare ORIGINAL POST --audit`, and the job fails when one is not faithful.

    python audit_posts.py --base origin/main --glob '_posts/*.md' --key org_link --set 'languages=["ko"]'

Exit 0 when every post audited is faithful (or none names an original), 1 when one has findings, 2 when an
original or a post cannot be read. With --summary FILE (GitHub's $GITHUB_STEP_SUMMARY) each audit is appended
to FILE as Markdown; with --annotate each finding is also a GitHub annotation on its post, shown in the pull
request's files. It needs git, differ and PyYAML (which differ installs).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml


def changed(base: str, pattern: str) -> list[str]:
    """The files matching `pattern` added or edited since the change left `base` (its merge base)."""
    names = subprocess.run(
        ["git", "diff", "--name-only", "--diff-filter=AMR", f"{base}...HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    return sorted(n for n in names if fnmatch.fnmatch(n, pattern))


def original(path: Path, key: str) -> str | None:
    """The address the post's YAML front matter gives under `key`, if it has one."""
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---"):
        return None
    front, _, _ = text[3:].partition("\n---")
    try:
        data = yaml.safe_load(front)
    except yaml.YAMLError:
        return None
    value = data.get(key) if isinstance(data, dict) else None
    return value.strip() if isinstance(value, str) and value.strip() else None


def arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the branch the change goes into (origin/main)")
    parser.add_argument("--glob", default="*.md", help="which files are posts (_posts/*.md)")
    parser.add_argument(
        "--key", default="org_link", help="the front matter key naming the original's address"
    )
    parser.add_argument(
        "--set", action="append", default=[], metavar="NAME=VALUE", help="passed to differ compare"
    )
    parser.add_argument("--differ", default="differ", help="how to run differ (python -m differ)")
    parser.add_argument("--summary", type=Path, help="append each audit to this file as Markdown")
    parser.add_argument(
        "--annotate", action="store_true", help="each finding a GitHub annotation on its post"
    )
    return parser


def audited(name: str, report: dict[str, Any]) -> tuple[str, list[str]]:
    """The headline and finding lines of `differ compare --audit --format json` for one post, as its text form
    says them."""
    mirror = report["mirrors"][0]
    findings = [str(f["line"]) for f in mirror["findings"]]
    count = f"{len(findings)} finding{'' if len(findings) == 1 else 's'}"
    return f"{name}: coverage {mirror['coverage']:.1%}; {count}", findings


def annotation(name: str, line: str) -> str:
    """A GitHub Actions workflow command that shows `line` on the file `name` (its special characters escaped)."""
    data = line.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    where = name.replace("%", "%25").replace(":", "%3A").replace(",", "%2C")
    return f"::error file={where},title=differ audit::{data}"


def markdown(text: str) -> str:
    """Page text that Markdown shows as it is."""
    return re.sub(r"([\\`*_{}\[\]<>()#+!|~])", r"\\\1", text)


def main(argv: list[str] | None = None) -> int:
    args = arguments().parse_args(argv)

    worst = 0
    for name in changed(args.base, args.glob):
        address = original(Path(name), args.key)
        if address is None:
            print(f"{name}: no {args.key} in its front matter; not audited")
            continue
        command = [*shlex.split(args.differ), "compare", address, name, "--audit", "--format", "json"]
        command += [part for setting in args.set for part in ("--set", setting)]
        said = subprocess.run(command, capture_output=True, text=True)
        if said.returncode not in (0, 1):  # the original or the post could not be read: differ says why
            print(said.stderr, end="", flush=True)
            lines, worst = [said.stderr.strip()], 2
        else:
            headline, findings = audited(name, json.loads(said.stdout))
            print("\n".join([headline, *(f"  • {line}" for line in findings)]), flush=True)
            for line in findings if args.annotate else []:
                print(annotation(name, line), flush=True)
            lines = [headline, *(f"- {markdown(line)}" for line in findings)]
            worst = max(worst, 1 if findings else 0)
        if args.summary:
            with args.summary.open("a", encoding="utf-8") as out:
                out.write(f"### {markdown(name)}\n\n" + "\n".join([markdown(lines[0]), *lines[1:]]) + "\n\n")
    return worst


if __name__ == "__main__":
    sys.exit(main())
