"""`differ add`, `differ import`, `differ notify add`, `differ set`, `differ notify set` and `differ remove`:
put new documents, notifiers, or a mirror of a document into config.toml, change their options, or take one
out, without opening an editor. The file is edited as text (its comments and layout stay; `tomltext` finds the
tables and writes the values), and the result must read back as a valid configuration, with the change made and
nothing else changed, before it replaces the old file (`text`). The store is never touched: a page no longer
watched keeps its history. `naming` says what a page added is watched as and called; `sources`, `settings` and
`notifiers` make the edits."""

from differ.edit.naming import (
    address_to_watch,
    host_id,
    mirror_id,
    needs,
    page_kind,
    plain_address,
    same_page,
    slug,
    unique,
)
from differ.edit.notifiers import (
    Notifier,
    add_notifier,
    check_edited,
    plain_http,
    remove_notifier,
    set_notifier,
    stand_ins,
)
from differ.edit.settings import DOCUMENT_SET, SET_ALSO, set_options, set_service, written_options
from differ.edit.sources import Page, add_documents, add_source, remove_source, set_paused
from differ.edit.text import NEW_FILE, Set

__all__ = [
    "DOCUMENT_SET",
    "NEW_FILE",
    "SET_ALSO",
    "Notifier",
    "Page",
    "Set",
    "add_documents",
    "add_notifier",
    "add_source",
    "address_to_watch",
    "check_edited",
    "host_id",
    "mirror_id",
    "needs",
    "page_kind",
    "plain_address",
    "plain_http",
    "remove_notifier",
    "remove_source",
    "same_page",
    "set_notifier",
    "set_options",
    "set_paused",
    "set_service",
    "slug",
    "stand_ins",
    "unique",
    "written_options",
]
