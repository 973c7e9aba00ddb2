"""Load and validate `config.toml`; every mistake becomes one line naming the file, the key path and the fix.

`model` holds what a configuration is and its defaults, in one place; `loader` reads and checks the file;
`stored` reads a configuration back from a store alone. Source kinds and notifiers declare their own options
(see `differ.normalize.kinds` and `differ.notify`), and are checked by the same code.
"""

from __future__ import annotations

from differ.config.loader import adhoc_source, check_notifier, load_config, notifier_options, parse_config
from differ.config.model import (
    CHANGE_KINDS,
    DEFAULT_CONFIG,
    DEFAULT_EVENTS,
    DEFAULT_USER_AGENT,
    ENV_REFERENCE,
    EVENTS,
    LANGUAGES,
    MIRROR_ONLY,
    SERVICE_OPTIONS,
    SOURCE_OPTIONS,
    VERSION_EVENTS,
    WEB_ARCHIVE,
    Config,
    DocumentConfig,
    NotifierConfig,
    ServiceConfig,
    SourceConfig,
    iter_secrets,
    redact,
)
from differ.config.stored import store_config, with_stored

__all__ = [
    "CHANGE_KINDS",
    "DEFAULT_CONFIG",
    "DEFAULT_EVENTS",
    "DEFAULT_USER_AGENT",
    "ENV_REFERENCE",
    "EVENTS",
    "LANGUAGES",
    "MIRROR_ONLY",
    "SERVICE_OPTIONS",
    "SOURCE_OPTIONS",
    "VERSION_EVENTS",
    "WEB_ARCHIVE",
    "Config",
    "DocumentConfig",
    "NotifierConfig",
    "ServiceConfig",
    "SourceConfig",
    "adhoc_source",
    "check_notifier",
    "iter_secrets",
    "load_config",
    "notifier_options",
    "parse_config",
    "redact",
    "store_config",
    "with_stored",
]
