"""E-mail alerts against a real SMTP server on 127.0.0.1 (aiosmtpd, an independent implementation): the message
as a mail client reads it, STARTTLS and TLS with a verified certificate (trustme CA), login, temporary and
permanent refusals, a relay that is down, and a configuration that cannot work."""

from __future__ import annotations

import asyncio
import contextlib
import email
import email.policy
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
import trustme
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, Session

from differ.check import check
from differ.config import parse_config
from differ.errors import ConfigError
from differ.notify import Outbox, deliver, dispatch, send_test
from tests.conftest import Clock, Server, article, make_app, one_doc


@dataclass
class Received:
    mail_from: str
    rcpt_tos: list[str]
    message: EmailMessage
    authenticated: bool
    tls: bool


@dataclass
class Relay:
    """An SMTP server in its own event loop thread; `reply` answers DATA (None: accept), `refuse` RCPT."""

    port: int = 0
    received: list[Received] = field(default_factory=list)
    reply: str | None = None
    refuse: dict[str, str] = field(default_factory=dict)
    logins: list[tuple[bytes, bytes]] = field(default_factory=list)

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        if address in self.refuse:
            return self.refuse[address]
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        if self.reply:
            return self.reply
        content = envelope.original_content or b""
        message = email.message_from_bytes(content, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        tls = server.transport is not None and server.transport.get_extra_info("cipher") is not None
        self.received.append(
            Received(str(envelope.mail_from), list(envelope.rcpt_tos), message, session.authenticated, tls)
        )
        return "250 OK"


def _authenticate(relay: Relay) -> Any:
    def check(server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any) -> AuthResult:
        relay.logins.append((data.login, data.password))
        return AuthResult(success=(data.login, data.password) == (b"differ", b"s3cret"), handled=False)

    return check


@pytest.fixture(scope="module")
def ca(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[trustme.CA, Path]]:
    authority = trustme.CA()
    path = tmp_path_factory.mktemp("ca") / "ca.pem"
    authority.cert_pem.write_to_path(str(path))
    yield authority, path


def start_relay(
    *, tls: str = "none", auth: bool = False, ca: trustme.CA | None = None, port: int = 0
) -> tuple[Relay, Any]:
    relay = Relay()
    context = None
    if ca is not None:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ca.issue_cert("127.0.0.1").configure_cert(context)
    loop = asyncio.new_event_loop()

    def factory() -> SMTP:
        return SMTP(
            relay,
            authenticator=_authenticate(relay) if auth else None,
            auth_require_tls=tls != "none",
            tls_context=context if tls == "starttls" else None,
            require_starttls=tls == "starttls",
        )

    server = loop.run_until_complete(
        loop.create_server(factory, "127.0.0.1", port, ssl=context if tls == "tls" else None)
    )
    relay.port = server.sockets[0].getsockname()[1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    def stop() -> None:
        async def close() -> None:
            server.close()
            await server.wait_closed()

        asyncio.run_coroutine_threadsafe(close(), loop).result(5)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)

    return relay, stop


@contextlib.contextmanager
def running_relay(**kw: Any) -> Iterator[Relay]:
    r, stop = start_relay(**kw)
    try:
        yield r
    finally:
        stop()


@pytest.fixture
def relay() -> Iterator[Relay]:
    with running_relay() as r:
        yield r


def mail_toml(port: int, extra: str = "", security: str = "none") -> str:
    return (
        f'[[notify]]\nname = "release-team"\nkind = "email"\nhost = "127.0.0.1"\nport = {port}\n'
        f'security = "{security}"\nfrom = "differ <differ@example.org>"\n'
        f'to = ["release@example.org", "Dev Rel <devrel@example.org>"]\n{extra}'
    )


def changed(tmp_path: Path, server: Server, notify: str, body2: str = "<p>New text here.</p>") -> Any:
    server.page("/post", article("<p>Old text here.</p>"))
    clock = Clock()
    app = make_app(
        one_doc(
            tmp_path,
            server.url("/post"),
            extra="robots = false",
            notify=notify,
            service='base_url = "https://reports.example.org/differ/"\n',
        ),
        clock,
    )
    check(app, app.config.sources())
    server.page("/post", article(body2))
    clock.advance(3600)
    check(app, app.config.sources())
    return app, clock


def test_a_change_arrives_as_a_mail_a_reader_can_use(tmp_path: Path, server: Server, relay: Relay) -> None:
    app, _ = changed(
        tmp_path, server, mail_toml(relay.port), "<p>New &lt;script&gt;alert(1)&lt;/script&gt; text.</p>"
    )
    assert len(relay.received) == 1
    got = relay.received[0]
    assert got.mail_from == "differ@example.org"
    assert got.rcpt_tos == ["release@example.org", "devrel@example.org"]
    m = got.message
    assert m["Subject"] == "Doc changed (canonical)"
    assert m["From"] == "differ <differ@example.org>"
    assert m["To"] == "release@example.org, Dev Rel <devrel@example.org>"
    assert m["Auto-Submitted"] == "auto-generated"
    assert m["X-Differ-Event"] == "changed"
    assert m["References"] == m["In-Reply-To"] == "<differ.doc@example.org>"  # the document's thread
    sent = Outbox(app.store).messages("release-team", "sent")
    assert [msg.id for msg in sent] == [m["Message-ID"].strip("<>").split("@")[0]]
    assert m["Message-ID"].endswith("@example.org>")
    assert m["Date"] == "Wed, 08 Jul 2026 18:45:00 +0000"
    assert m.get_content_type() == "multipart/alternative"
    text = m.get_body(("plain",))
    html = m.get_body(("html",))
    assert text is not None and html is not None
    assert text.get_content().replace("\r\n", "\n") == (
        "Doc (canonical), version 1 → 2: 1 change.\n"
        '• "Old text here."\n'
        '  → "New <script>alert(1)</script> text."\n'
        "\n"
        "Full diff: https://reports.example.org/differ/doc/canonical/diff-2.html\n"
        "\n"
        "-- \n"
        "doc/canonical · version 1 → 2 · 2026-07-08T18:45:00Z\n"
    )
    page = html.get_content()
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert '<a href="https://reports.example.org/differ/doc/canonical/diff-2.html">Full diff</a>' in page
    assert "<h2>Doc changed (canonical)</h2>" in page
    said = (
        "<li>&quot;Old text here.&quot;<br>→ &quot;New &lt;script&gt;alert(1)&lt;/script&gt; text.&quot;</li>"
    )
    assert said in page


def test_a_mails_html_keeps_each_indented_line_with_the_line_it_belongs_to() -> None:
    """A change's new text, the edits a stale mirror misses under its finding: with their bullet; an indented
    line under a line that is no bullet stays with that line, not with the bullet above it."""
    from differ.notify.mail import _html

    lines = [
        "Doc: mirror m (coverage 99.1%, matches canonical version 1 of 2)",
        "• new: stale: matches canonical version 1, so the mirror misses 1 change:",
        '  • Post: "a"',
        '    → "b"',
        "• extra: x",
        "…and 3 more changes",
        "  (see the reports site)",
    ]
    page = _html("Title", lines, "", "context")
    assert (
        "<ul><li>new: stale: matches canonical version 1, so the mirror misses 1 change:<br>• Post: &quot;a&quot;"
        "<br>→ &quot;b&quot;</li><li>extra: x</li></ul>"
    ) in page
    assert "<p>…and 3 more changes<br>(see the reports site)</p>" in page


def test_the_same_event_is_one_mail(tmp_path: Path, server: Server, relay: Relay) -> None:
    app, _ = changed(tmp_path, server, mail_toml(relay.port))
    check(app, app.config.sources())  # nothing new
    deliver(app)
    assert len(relay.received) == 1


def test_login_over_starttls_with_a_verified_certificate(
    tmp_path: Path, server: Server, ca: tuple[trustme.CA, Path]
) -> None:
    authority, pem = ca
    with running_relay(tls="starttls", auth=True, ca=authority) as r:
        extra = f'username = "differ"\npassword = "s3cret"\nca_file = "{pem}"\n'
        changed(tmp_path, server, mail_toml(r.port, extra, security="starttls"))
        assert r.logins == [(b"differ", b"s3cret")]
        assert [(x.authenticated, x.tls) for x in r.received] == [(True, True)]


def test_implicit_tls(tmp_path: Path, server: Server, ca: tuple[trustme.CA, Path]) -> None:
    authority, pem = ca
    with running_relay(tls="tls", ca=authority) as r:
        changed(tmp_path, server, mail_toml(r.port, f'ca_file = "{pem}"\n', security="tls"))
        assert len(r.received) == 1 and r.received[0].tls


def test_an_untrusted_certificate_sends_nothing_and_retries(
    tmp_path: Path, server: Server, ca: tuple[trustme.CA, Path]
) -> None:
    authority, _ = ca
    with running_relay(tls="tls", ca=authority) as r:
        app, _ = changed(tmp_path, server, mail_toml(r.port, security="tls"))
        assert r.received == []
        [pending] = Outbox(app.store).messages("release-team", "pending")
        assert pending.data["last_error"].startswith("the relay's certificate is not trusted: ")


def test_starttls_is_required_not_hoped_for(tmp_path: Path, server: Server, relay: Relay) -> None:
    app, _ = changed(tmp_path, server, mail_toml(relay.port, security="starttls"))
    assert relay.received == []
    [failed] = Outbox(app.store).messages("release-team", "failed")
    assert failed.data["last_error"] == (
        f"127.0.0.1:{relay.port} does not offer STARTTLS, so nothing was sent; expected a relay that does,"
        ' security = "tls" for implicit TLS, or "none" for a trusted local relay'
    )


def test_a_wrong_password_fails_without_retrying(
    tmp_path: Path, server: Server, ca: tuple[trustme.CA, Path]
) -> None:
    authority, pem = ca
    with running_relay(tls="starttls", auth=True, ca=authority) as r:
        extra = f'username = "differ"\npassword = "wrong"\nca_file = "{pem}"\n'
        app, _ = changed(tmp_path, server, mail_toml(r.port, extra, security="starttls"))
        assert r.received == []
        [failed] = Outbox(app.store).messages("release-team", "failed")
        assert failed.data["last_error"] == "login refused: 535 5.7.8 Authentication credentials invalid"


def test_temporary_refusal_is_retried_permanent_is_not(tmp_path: Path, server: Server, relay: Relay) -> None:
    relay.reply = "451 4.3.0 Try again later"
    app, clock = changed(tmp_path, server, mail_toml(relay.port))
    outbox = Outbox(app.store)
    [pending] = outbox.messages("release-team", "pending")
    assert pending.data["last_error"] == "451 4.3.0 Try again later"
    relay.reply = None
    clock.advance(60)
    deliver(app)
    assert len(relay.received) == 1 and outbox.messages("release-team", "pending") == []

    relay.reply = "554 5.7.1 Message rejected"
    attempts = send_test(app, "release-team")
    assert [(a.ok, a.detail) for a in attempts] == [(False, "554 5.7.1 Message rejected")]
    assert len(outbox.messages("release-team", "failed")) == 1


def test_one_refused_recipient_does_not_resend_to_the_others(
    tmp_path: Path, server: Server, relay: Relay
) -> None:
    relay.refuse["release@example.org"] = "550 5.1.1 No such user"
    app, _ = changed(tmp_path, server, mail_toml(relay.port))
    assert [x.rcpt_tos for x in relay.received] == [["devrel@example.org"]]
    [sent] = Outbox(app.store).messages("release-team", "sent")
    assert sent.data["note"] == "refused by the relay for release@example.org: 550 5.1.1 No such user"


def test_a_relay_that_is_down_gets_the_mail_once_it_is_back(tmp_path: Path, server: Server) -> None:
    r, stop = start_relay()
    port = r.port
    stop()
    app, clock = changed(tmp_path, server, mail_toml(port))
    outbox = Outbox(app.store)
    [pending] = outbox.messages("release-team", "pending")
    assert pending.data["last_error"] == "connection refused"
    assert pending.data["attempts"] == 1
    clock.advance(60)
    back, stop = start_relay(port=port)
    try:
        deliver(app)
        deliver(app)
        assert len(back.received) == 1
        assert [m.data["attempts"] for m in outbox.messages("release-team", "sent")] == [2]
    finally:
        stop()


def test_sources_shows_where_mail_goes_without_the_password(tmp_path: Path, server: Server) -> None:
    from differ.cli import main

    config = tmp_path / "config.toml"
    config.write_text(
        f'[service]\nsnapshots = "{tmp_path / "s"}"\n[[documents]]\nid = "doc"\n[documents.canonical]\n'
        f'id = "c"\nurl = "{server.url("/post")}"\n'
        + mail_toml(2525, 'username = "differ"\npassword = "hunter22hunter22"\n', security="starttls")
    )
    out = _run(main, ["--config", str(config), "sources"])
    assert out.splitlines()[-1] == (
        "notify release-team  [email]  smtp://127.0.0.1:2525 (starttls) → release@example.org, "
        "Dev Rel <devrel@example.org>  events: changed, mirror_drift, fetch_failing, recovered, delivery_failed"
    )
    assert "hunter22" not in out


def _run(main: Any, argv: list[str]) -> str:
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(argv) == 0
    return buf.getvalue()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            "to = []\n",
            "config.toml: notify[0].to: expected at least one recipient",
        ),
        (
            'to = ["release at example.org"]\n',
            'config.toml: notify[0].to: expected an address such as "differ@example.org", found "release at '
            'example.org"',
        ),
        (
            'security = "ssl"\n',
            'config.toml: notify[0].security: expected one of starttls, tls, none, found "ssl"',
        ),
        (
            'security = "none"\nusername = "differ"\npassword = "pw"\n',
            "config.toml: notify[0].security: refusing to send a password unencrypted; expected security = "
            '"starttls" or "tls"',
        ),
        (
            'password = "pw"\n',
            "config.toml: notify[0].username: a password needs a username",
        ),
    ],
)
def test_a_configuration_that_cannot_work_is_one_line(tmp_path: Path, extra: str, message: str) -> None:
    base = {
        "host": '"smtp.example.org"',
        "from": '"differ@example.org"',
        "to": '["release@example.org"]',
    }
    overridden = {line.split("=")[0].strip() for line in extra.splitlines()}
    lines = "".join(f"{k} = {v}\n" for k, v in base.items() if k not in overridden)
    text = f'[[notify]]\nname = "n"\nkind = "email"\n{lines}{extra}'
    with pytest.raises(ConfigError) as exc:
        parse_config(text, tmp_path / "config.toml", {})
    assert str(exc.value) == message


def test_a_digest_is_one_mail_listing_its_alerts(tmp_path: Path, server: Server, relay: Relay) -> None:
    app, clock = changed(tmp_path, server, mail_toml(relay.port, 'digest = "1h"\n'))
    assert relay.received == []
    clock.advance(3601)
    dispatch(app, [])
    [got] = relay.received
    assert got.message["Subject"] == "differ digest: 1 update"
    assert got.message["X-Differ-Event"] == "digest"
    assert got.message["References"] is None  # a digest is about many documents: no thread of one
    text = got.message.get_body(("plain",))
    assert text is not None
    assert (
        text.get_content()
        .replace("\r\n", "\n")
        .startswith('• Doc changed (canonical)\n  • "Old text here."\n    → "New text here."\n')
    )


def test_check_asks_the_relay_without_sending_a_mail(tmp_path: Path, ca: tuple[trustme.CA, Path]) -> None:
    """`differ notify check`: STARTTLS, login, then MAIL FROM and RCPT TO for each recipient, taken back with
    RSET: the relay says what it would refuse, and nothing is sent."""
    from differ.app import App
    from differ.notify import probe
    from differ.store import Store
    from tests.conftest import make_config

    authority, pem = ca
    text = '[[documents]]\nid = "doc"\n[documents.canonical]\nid = "c"\nurl = "https://example.org/"\n'
    with running_relay(tls="starttls", auth=True, ca=authority) as r:

        def asked(password: str) -> tuple[bool | None, str]:
            extra = f'username = "differ"\npassword = "{password}"\nca_file = "{pem}"\n'
            config = make_config(tmp_path, text + mail_toml(r.port, extra, security="starttls"))
            [result] = probe(App(config, Store(config.service.snapshots)))
            return result.ok, result.detail

        assert asked("s3cret") == (
            True,
            f"127.0.0.1:{r.port} (starttls): logged in as differ, takes mail from differ@example.org to 2 recipients",
        )
        r.refuse["devrel@example.org"] = "550 5.1.1 No such user"
        assert asked("s3cret") == (False, "the relay refuses devrel@example.org: 550 5.1.1 No such user")
        assert asked("wrong") == (False, "login refused: 535 5.7.8 Authentication credentials invalid")
        assert r.received == []


def test_a_stale_mirrors_mail_gives_the_passages_to_carry_over(tmp_path: Path) -> None:
    """The canonical's passages a mirror has to carry over, after the summary: in the text part each named with
    its Markdown indented, in the HTML part in a <pre>, page text escaped; those left out counted."""
    from differ.notify.mail import Email
    from tests.helpers import notifier_config

    at = {"version": 2, "fetched_at": "2026-07-08T21:00:00Z"}
    passage = {
        "block": "paragraph",
        "section": ["Install"],
        "label": "Run <b>it</b> …",
        "text": "Run <b>it</b> with pip.",
        "markdown": "Run <b>it</b> with\n`pip`.",
        "since": {"version": 1, "fetched_at": "2026-07-08T17:45:00Z"},
        "edited": at,
        "in_copy": {
            "renders": True,
            "within": False,
            "block": "paragraph",
            "label": "Lance <i>",
            "section": [],
        },
    }
    event = {
        "type": "mirror_drift",
        "document": "doc",
        "title": "Doc",
        "mirror": "copy",
        "headline": "is stale: matches version 1, canonical is at 2",
        "summary": ["Doc: mirror copy (coverage 90.0%, matches canonical version 1 of 2)"],
        "carry_over": {"after": 1, "passages": [passage], "left_out": 2},
    }
    options = mail_toml(25).split("\n", 3)[3]  # the table's settings, after its name and kind
    body = Email(notifier_config(tmp_path, "email", options)).payload(event).body
    assert body["text"].split("\n\n-- \n")[0].splitlines()[1:] == [
        "",
        "To carry over: the canonical's 3 passages edited after version 1, as they now read:",
        "",
        "• Install › Run <b>it</b> … (edited in version 2, 2026-07-08T21:00:00Z, there since version 1)",
        "  in copy: “Lance <i>”",
        "    Run <b>it</b> with",
        "    `pip`.",
        "",
        "…and 2 more passages (differ blame doc --after doc/copy --format markdown gives them all)",
    ]
    assert (
        "<h3>To carry over</h3><p>The canonical&#x27;s 3 passages edited after version 1, as they now read:</p>"
        "<ul><li>Install › Run &lt;b&gt;it&lt;/b&gt; … (edited in version 2, 2026-07-08T21:00:00Z, there since "
        "version 1)<br><i>in copy: “Lance &lt;i&gt;”</i>"
        '<pre style="white-space:pre-wrap">Run &lt;b&gt;it&lt;/b&gt; with\n`pip`.</pre></li></ul>'
        "<p>…and 2 more passages (differ blame doc --after doc/copy --format markdown gives them all)</p>"
    ) in body["html"]
