"""Notify: turn events into messages for each `[[notify]]` destination, queue them durably, deliver them.

events ──dispatch──▶ outbox (pending, per destination, in order) ──deliver──▶ receiver
                                │  2xx → sent/    retryable → backoff    4xx → failed/    410 → disabled
"""

from __future__ import annotations

from differ.notify import discord as _discord  # noqa: F401  (registers "discord")
from differ.notify import gitea as _gitea  # noqa: F401  (registers "gitea")
from differ.notify import github as _github  # noqa: F401  (registers "github")
from differ.notify import gitlab as _gitlab  # noqa: F401  (registers "gitlab")
from differ.notify import googlechat as _googlechat  # noqa: F401  (registers "googlechat")
from differ.notify import mail as _mail  # noqa: F401  (registers "email")
from differ.notify import matrix as _matrix  # noqa: F401  (registers "matrix")
from differ.notify import mattermost as _mattermost  # noqa: F401  (registers "mattermost")
from differ.notify import ntfy as _ntfy  # noqa: F401  (registers "ntfy")
from differ.notify import slack as _slack  # noqa: F401  (registers "slack")
from differ.notify import teams as _teams  # noqa: F401  (registers "teams")
from differ.notify import telegram as _telegram  # noqa: F401  (registers "telegram")
from differ.notify import wayback as _wayback  # noqa: F401  (registers "wayback")
from differ.notify import webhook as _webhook  # noqa: F401  (registers "webhook")
from differ.notify import zulip as _zulip  # noqa: F401  (registers "zulip")
from differ.notify.base import NOTIFIERS, Notifier, Outgoing, notifier
from differ.notify.delivery import (
    COMMAND_WAIT,
    Preview,
    Probe,
    catch_up,
    deliver,
    dispatch,
    event_id,
    preview,
    probe,
    send_test,
)
from differ.notify.outbox import Message, Outbox

__all__ = [
    "COMMAND_WAIT",
    "NOTIFIERS",
    "Message",
    "Notifier",
    "Outbox",
    "Outgoing",
    "Preview",
    "Probe",
    "catch_up",
    "deliver",
    "dispatch",
    "event_id",
    "notifier",
    "preview",
    "probe",
    "send_test",
]
