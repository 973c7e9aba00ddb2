"""Diff: what changed between two versions, where, word by word; and summaries of it."""

from differ.diff.blocks import Block, split_blocks, words
from differ.diff.changes import Change, Diff
from differ.diff.engine import apply, diff, metadata_changes
from differ.diff.render import FORMATS, SCHEMA, as_json, render
from differ.diff.summary import Versions, is_edit_note, summarize
from differ.diff.words import word_ops

__all__ = [
    "FORMATS",
    "SCHEMA",
    "Block",
    "Change",
    "Diff",
    "Versions",
    "apply",
    "as_json",
    "diff",
    "is_edit_note",
    "metadata_changes",
    "render",
    "split_blocks",
    "summarize",
    "word_ops",
    "words",
]
