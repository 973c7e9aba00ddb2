"""E-mail through an SMTP relay: a plain-text and an HTML part, STARTTLS or TLS with a verified certificate.

The Message-ID is the outbox's message id, so a retry after a lost answer reaches the reader as the same mail,
and `Auto-Submitted: auto-generated` keeps vacation replies from answering it. Every alert about a document refers
to one root (`References`, `In-Reply-To`), so a mail reader shows a post's edits, drift and failures as one thread.
"""

from __future__ import annotations

import html
import smtplib
import ssl
from collections.abc import Callable
from datetime import datetime
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY
from email.utils import format_datetime, getaddresses, parseaddr
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from differ import options as opt
from differ.bullets import grouped, grouped_html
from differ.carry import carry_of
from differ.errors import NotifyError
from differ.notify.base import BASE_URL, Notifier, Outgoing, document_of, notifier
from differ.options import Invalid, Option, cut, plural

T = TypeVar("T")

if TYPE_CHECKING:
    from differ.notify.outbox import Message

PORTS = {"starttls": 587, "tls": 465, "none": 25}
SUBJECT_MAX = 200


def _address(value: str) -> str:
    """The bare address of `Name <a@b>` or `a@b`, or Invalid naming what is wrong."""
    if "\r" in value or "\n" in value:
        raise Invalid(f"expected one address on one line, found {opt.found(value)}")
    _, addr = parseaddr(value)
    local, at, domain = addr.rpartition("@")
    if not at or not local or "." not in domain.strip(".") or " " in addr:
        raise Invalid(f'expected an address such as "differ@example.org", found {opt.found(value)}')
    return addr


@notifier("email")
class Email(Notifier):
    """E-mail through an SMTP relay; the summary as text and HTML, with a link to the full diff."""

    options: ClassVar[dict[str, Option]] = {
        "host": Option(opt.nonempty_string, required=True, help="the SMTP relay's host name"),
        "port": Option(opt.integer(1, 65535), None, "default 587 for starttls, 465 for tls, 25 for none"),
        "security": Option(
            opt.choice("starttls", "tls", "none"),
            "starttls",
            "starttls (required, never falls back to plain text), tls (implicit, port 465) or none",
        ),
        "username": Option(opt.string, "", "login name, if the relay asks for one"),
        "password": Option(opt.string, "", "login password", secret=True),
        "from": Option(opt.nonempty_string, required=True, help='the sender, "differ <differ@example.org>"'),
        "to": Option(opt.string_list, required=True, help="the recipients"),
        "ca_file": Option(opt.path, "", "a CA bundle that signed the relay's certificate (a private CA)"),
        "base_url": BASE_URL,
    }

    @classmethod
    def check(cls, config: Any) -> None:
        o = config.options
        try:
            _address(o["from"])
        except Invalid as exc:
            raise Invalid(str(exc), key="from")
        if not o["to"]:
            raise Invalid("expected at least one recipient", key="to")
        for value in o["to"]:
            try:
                _address(value)
            except Invalid as exc:
                raise Invalid(str(exc), key="to")
        if o["password"] and not o["username"]:
            raise Invalid("a password needs a username", key="username")
        if o["username"] and o["security"] == "none" and o["host"] not in ("localhost", "127.0.0.1", "::1"):
            raise Invalid(
                'refusing to send a password unencrypted; expected security = "starttls" or "tls"',
                key="security",
            )

    def target(self) -> str:
        o = self.config.options
        return f"smtp://{o['host']}:{self.port()} ({o['security']}) → {', '.join(o['to'])}"

    def port(self) -> int:
        o = self.config.options
        return int(o["port"] or PORTS[o["security"]])

    def payload(self, event: dict[str, Any]) -> Outgoing:
        title, lines, context = self.title(event), self.lines(event), self.context(event)
        link = self.report_link(event)
        label = self.link_label(event)
        carry = carry_of(event)
        passages = _passages_text(event, carry) if carry else []
        text = "\n".join([*lines, *passages, *(["", f"{label}: {link}"] if link else []), "", "-- ", context])
        body = {
            "subject": cut(" ".join(title.split()), SUBJECT_MAX),
            "text": text + "\n",
            "html": _html(title, lines, link, context, label, _passages_html(event, carry) if carry else ""),
        }
        headers = {"X-Differ-Event": str(event.get("type", ""))}
        document = document_of(event)
        if document:  # every alert about a document refers to one root, which mail readers thread by
            domain = _address(self.config.options["from"]).rpartition("@")[2]
            headers["References"] = headers["In-Reply-To"] = f"<differ.{document}@{domain}>"
        return Outgoing(body, headers)

    def mail(self, msg: Message) -> EmailMessage:
        """The message as sent: headers from the configuration, parts from the outbox."""
        o, body = self.config.options, msg.data["body"]
        mail = EmailMessage(policy=SMTP_POLICY)
        mail["From"] = o["from"]
        mail["To"] = ", ".join(o["to"])
        mail["Subject"] = body["subject"]
        created = str(msg.data.get("created") or "")
        try:
            mail["Date"] = format_datetime(datetime.fromisoformat(created.replace("Z", "+00:00")))
        except ValueError:
            mail["Date"] = format_datetime(datetime.now().astimezone())
        domain = _address(o["from"]).rpartition("@")[2]
        mail["Message-ID"] = f"<{msg.id}@{domain}>"
        mail["Auto-Submitted"] = "auto-generated"
        for name, value in msg.data.get("headers", {}).items():
            mail[name] = value
        mail.set_content(body["text"])
        mail.add_alternative(body["html"], subtype="html")
        return mail

    def send(self, msg: Message, now: datetime) -> str | None:
        o = self.config.options
        mail = self.mail(msg)
        sender = _address(o["from"])
        recipients = [addr for _, addr in getaddresses(list(o["to"]))]
        refused = self._relay(lambda client: client.send_message(mail, from_addr=sender, to_addrs=recipients))
        if refused:
            said = "; ".join(f"{rcpt}: {_said(code, text)}" for rcpt, (code, text) in refused.items())
            return f"refused by the relay for {said}"
        return None

    def probe(self) -> str:
        """The relay asked without a mail: connect, STARTTLS or TLS as configured, log in, then offer the sender
        and each recipient (MAIL FROM, RCPT TO) and take it back (RSET) before any message is sent."""
        o = self.config.options
        sender = _address(o["from"])
        recipients = [addr for _, addr in getaddresses(list(o["to"]))]

        def offer(client: smtplib.SMTP) -> dict[str, tuple[int, bytes]]:
            code, text = client.mail(sender)
            if code >= 400:
                raise smtplib.SMTPSenderRefused(code, text, sender)
            refused = {}
            for rcpt in recipients:
                code, text = client.rcpt(rcpt)
                if code >= 400:
                    refused[rcpt] = (code, text)
            client.rset()
            return refused

        refused = self._relay(offer)
        if refused:
            said = "; ".join(f"{rcpt}: {_said(code, text)}" for rcpt, (code, text) in refused.items())
            raise NotifyError(f"the relay refuses {said}")
        login = f"logged in as {o['username']}, " if o["username"] else ""
        count = plural(len(recipients), "recipient")
        return f"{o['host']}:{self.port()} ({o['security']}): {login}takes mail from {sender} to {count}"

    def _relay(self, do: Callable[[smtplib.SMTP], T]) -> T:
        """`do` with a connection to the relay, secured and logged in as configured; every failure a NotifyError
        that says whether to retry."""
        o = self.config.options
        host, port, security, timeout = o["host"], self.port(), o["security"], self.config.timeout
        try:
            context = ssl.create_default_context(cafile=o["ca_file"] or None)
        except (OSError, ssl.SSLError) as exc:
            raise NotifyError(f"cannot read ca_file {o['ca_file']}: {exc}", retryable=True)
        try:
            client: smtplib.SMTP
            if security == "tls":
                client = smtplib.SMTP_SSL(host, port, timeout=timeout, context=context)
            else:
                client = smtplib.SMTP(host, port, timeout=timeout)
            with client:
                client.ehlo()
                if security == "starttls":
                    if not client.has_extn("starttls"):
                        raise NotifyError(
                            f"{host}:{port} does not offer STARTTLS, so nothing was sent; expected a relay that"
                            ' does, security = "tls" for implicit TLS, or "none" for a trusted local relay'
                        )
                    client.starttls(context=context)
                    client.ehlo()
                if o["username"]:
                    client.login(o["username"], o["password"])
                return do(client)
        except smtplib.SMTPAuthenticationError as exc:
            raise NotifyError(f"login refused: {_said(exc.smtp_code, exc.smtp_error)}")
        except smtplib.SMTPNotSupportedError as exc:
            raise NotifyError(f"the relay does not support {exc}")
        except smtplib.SMTPRecipientsRefused as exc:
            codes = [code for code, _ in exc.recipients.values()]
            said = "; ".join(f"{rcpt}: {_said(code, text)}" for rcpt, (code, text) in exc.recipients.items())
            raise NotifyError(
                f"every recipient refused: {said}", retryable=all(400 <= c < 500 for c in codes)
            )
        except smtplib.SMTPResponseException as exc:
            temporary = 400 <= exc.smtp_code < 500
            raise NotifyError(_said(exc.smtp_code, exc.smtp_error), retryable=temporary)
        except smtplib.SMTPServerDisconnected:
            raise NotifyError("the relay closed the connection", retryable=True)
        except ssl.SSLCertVerificationError as exc:
            raise NotifyError(f"the relay's certificate is not trusted: {exc.verify_message}", retryable=True)
        except ssl.SSLError as exc:
            raise NotifyError(f"TLS failed: {exc.reason or exc}", retryable=True)
        except TimeoutError:
            raise NotifyError(f"no answer within {timeout:g}s", retryable=True)
        except ConnectionRefusedError:
            raise NotifyError("connection refused", retryable=True)
        except OSError as exc:
            raise NotifyError(f"connection failed: {exc.strerror or exc}", retryable=True)


def _said(code: int, text: bytes | str) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return f"{code} {' '.join(text.split())}".strip()


def _passages_text(event: dict[str, Any], carry: dict[str, Any]) -> list[str]:
    """A stale mirror's passages to carry over (`carry_over`), for the plain-text part: each named, with its
    place in the copy, then its Markdown as written, indented."""
    from differ.carry import carried_over, more_passages, passage_said, place_said

    out = ["", f"To carry over: {carried_over(carry)}:"]
    copy = str(event.get("mirror") or "")
    for p in carry["passages"]:
        out += [
            "",
            f"• {passage_said(p)}",
            *([f"  {place_said(p['in_copy'], copy)}"] if p.get("in_copy") else []),
            *(f"    {line}".rstrip() for line in str(p["markdown"]).splitlines()),
        ]
    left = int(carry.get("left_out") or 0)
    return out + (["", more_passages(event, left)] if left else [])


def _passages_html(event: dict[str, Any], carry: dict[str, Any]) -> str:
    """The same for the HTML part: each passage named, its Markdown in a <pre> (escaped)."""
    from differ.carry import carried_over, more_passages, passage_items_html

    e = html.escape
    pre = '<pre style="white-space:pre-wrap">'  # a mail reader has no style sheet of ours
    items = passage_items_html(carry["passages"], str(event.get("mirror") or ""), pre)
    left = int(carry.get("left_out") or 0)
    more = f"<p>{e(more_passages(event, left))}</p>" if left else ""
    said = carried_over(carry)
    return f"<h3>To carry over</h3><p>{e(said[:1].upper() + said[1:])}:</p><ul>{items}</ul>{more}"


def _html(
    title: str, lines: list[str], link: str, context: str, label: str = "Full diff", passages: str = ""
) -> str:
    """The summary as a small HTML page: page text escaped, indented lines ("→" continuations, the edits a stale
    mirror misses) kept with the line they belong to (`grouped`); then `passages`, HTML made of escaped text."""
    e = html.escape
    head, bullets, rest = lines[:1], list[str](), list[str]()
    for item in grouped(lines[1:]):
        (bullets if item.startswith("•") else rest).append(grouped_html(item))
    parts = [
        "<!DOCTYPE html>",
        '<html><head><meta charset="utf-8"></head><body style="font-family:sans-serif">',
        f"<h2>{e(title)}</h2>",
        *(f"<p>{e(line)}</p>" for line in head),
    ]
    if bullets:
        parts.append("<ul>" + "".join(f"<li>{b}</li>" for b in bullets) + "</ul>")
    parts.extend(f"<p>{line}</p>" for line in rest)
    if passages:
        parts.append(passages)
    if link:
        parts.append(f'<p><a href="{e(link)}">{e(label)}</a></p>')
    parts.append(f'<p style="color:#666;font-size:small">{e(context)}</p></body></html>')
    return "\n".join(parts) + "\n"
