"""A page fetched by a program of the user's (`command`): real processes, really killed, against a local server."""

from __future__ import annotations

import io
import json
import shutil
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from differ.check import check, check_source
from differ.cli import main
from differ.errors import ConfigError, ExitCode, FetchError
from differ.fetch.command import proxy_environment, run_command
from tests.conftest import Proxy, Reply, Server, article, make_app, make_config, one_doc
from tests.helpers import config_check

# What the tests run as the user's program: a stand-in for a headless browser, doing what its first argument
# says. It fetches with urllib, so the server sees another client than differ's.
PROGRAM = r"""
import os, subprocess, sys, time, urllib.request

mode, arg = sys.argv[1], sys.argv[2]
if mode == "fetch":
    sys.stdout.buffer.write(urllib.request.urlopen(arg).read())
elif mode == "fail":
    print("starting", file=sys.stderr)
    print("chromium: cannot open display", file=sys.stderr)
    sys.exit(3)
elif mode == "hang":  # a program that never finishes, with a helper of its own
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with open(arg, "w") as pids:
        pids.write(f"{os.getpid()} {helper.pid}")
    time.sleep(600)
elif mode == "flood":
    while True:
        sys.stdout.buffer.write(b"<p>" + b"x" * 65536 + b"</p>")
elif mode == "linger":  # prints the page, exits, and leaves a helper holding its output open
    sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[3]).read())
    sys.stdout.flush()
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with open(arg, "w") as pids:
        pids.write(str(helper.pid))
elif mode == "bytes":
    sys.stdout.buffer.write(open(arg, "rb").read())
"""

PAGE = article("<p>" + "The release notes of the new version, in full. " * 10 + "</p>")


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "program.py"
    path.write_text(PROGRAM)
    return path


def command(program: Path, *args: str) -> str:
    return "command = " + json.dumps([sys.executable, str(program), *args])


def alive(pid: int) -> bool:
    """Whether a process runs (a zombie, dead but not yet reaped by whoever adopted it, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def started(pids: Path, within: float) -> None:
    """Wait, up to `within` seconds, for the test program to write its own and its helper's pid."""
    deadline = time.monotonic() + within
    while not (pids.exists() and pids.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)


def ended(pids: Path, within: float = 5) -> bool:
    """Whether the program and its helper (their pids in `pids`) are gone, waited for up to `within` seconds."""
    mine, helper = (int(pid) for pid in pids.read_text().split())
    deadline = time.monotonic() + within
    while (alive(mine) or alive(helper)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(mine) and not alive(helper)


def hanging_config(tmp_path: Path, server: Server, program: Path, pids: Path) -> Path:
    """A config whose one source's program hangs, with a helper of its own, after writing their pids."""
    config = tmp_path / "config.toml"
    config.write_text(
        f'[service]\nsnapshots = "{tmp_path / "snapshots"}"\nper_host_delay = "0s"\ntimeout = "60s"\n'
        f'[[documents]]\nid = "doc"\n[documents.canonical]\nurl = "{server.url("/post")}"\n'
        f"allow_private = true\n{command(program, 'hang', str(pids))}\n"
    )
    return config


def test_a_page_a_program_prints_is_a_version_that_records_the_program(
    tmp_path: Path, server: Server, program: Path
) -> None:
    server.page("/post", PAGE)
    url = server.url("/post")
    app = make_app(one_doc(tmp_path, url, extra=command(program, "fetch", "{url}")))
    source = app.config.sources()[0]
    assert check_source(app, source).line() == "doc/canonical: new version 1 (first snapshot)"
    [hit] = server.requests_to("/post")
    assert hit.headers["user-agent"].startswith("Python-urllib/")  # the program asked, not differ
    record = app.store.latest("doc/canonical").record  # type: ignore[union-attr]
    assert record["command"] == [sys.executable, str(program), "fetch", url]
    assert "status" not in record
    assert record["headers"] == {"content-type": "text/html; charset=utf-8"}
    [logged] = app.store.fetches("doc/canonical")
    assert (logged["exit"], logged["outcome"]) == (0, "new")
    server.page("/post", PAGE.replace("in full", "in brief"))
    assert check_source(app, source).line() == "doc/canonical: new version 2 (1 change)"
    assert check_source(app, source).line() == "doc/canonical: unchanged (same body)"


def test_robots_txt_is_asked_before_the_program_runs(tmp_path: Path, server: Server, program: Path) -> None:
    server.page("/robots.txt", "User-agent: *\nDisallow: /post\n", "text/plain")
    server.page("/post", PAGE)
    app = make_app(one_doc(tmp_path, server.url("/post"), extra=command(program, "fetch", "{url}")))
    result = check_source(app, app.config.sources()[0])
    assert result.line() == (
        f"doc/canonical: failed: robots.txt of {server.base.split('://')[1]} disallows /post; set robots = false "
        "for this source to override"
    )
    assert server.requests_to("/post") == []


def test_the_program_is_given_differs_proxy_and_no_other(
    tmp_path: Path, server: Server, program: Path, proxy: Proxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With `proxy` set, the program is told it in the variables programs read (urllib here), and the
    environment's own proxy and exceptions give way to it, as they do for differ's own requests."""
    server.page("/post", PAGE)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("https_proxy", "http://127.0.0.1:1")
    monkeypatch.setenv("DIFFER_TEST_KEPT", "yes")
    config = one_doc(
        tmp_path,
        server.url("/post"),
        extra=command(program, "fetch", "{url}"),
        service=f'proxy = "{proxy.url()}"\n',
    )
    app = make_app(config)
    assert (
        check_source(app, app.config.sources()[0]).line() == "doc/canonical: new version 1 (first snapshot)"
    )
    assert proxy.seen == [f"GET {server.url('/robots.txt')}", f"GET {server.url('/post')}"]
    env = proxy_environment("http://ops:s3cret@proxy.corp:3128")
    assert {name: value for name, value in env.items() if "proxy" in name.lower()} == dict.fromkeys(
        ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"), "http://ops:s3cret@proxy.corp:3128"
    )
    assert env["DIFFER_TEST_KEPT"] == "yes"


def test_without_a_proxy_the_program_has_differs_environment(
    tmp_path: Path, server: Server, program: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.page("/post", PAGE)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:1")  # not asked: the page is on an exception
    app = make_app(one_doc(tmp_path, server.url("/post"), extra=command(program, "fetch", "{url}")))
    assert (
        check_source(app, app.config.sources()[0]).line() == "doc/canonical: new version 1 (first snapshot)"
    )


def test_a_program_that_fails_is_a_failed_check_with_its_last_words(
    tmp_path: Path, server: Server, program: Path
) -> None:
    app = make_app(one_doc(tmp_path, server.url("/post"), extra=command(program, "fail", "{url}")))
    result = check_source(app, app.config.sources()[0])
    assert result.line() == (
        f"doc/canonical: failed: command '{sys.executable}' exited with 3: chromium: cannot open display"
    )
    assert app.store.versions("doc/canonical") == []


def test_a_program_that_is_not_there_is_named(tmp_path: Path, server: Server) -> None:
    app = make_app(one_doc(tmp_path, server.url("/post"), extra='command = "differ-no-such-browser {url}"'))
    result = check_source(app, app.config.sources()[0])
    assert result.line() == (
        "doc/canonical: failed: command 'differ-no-such-browser' not found (not a file, nor on PATH)"
    )


def test_a_program_that_overruns_is_killed_with_what_it_started(
    tmp_path: Path, server: Server, program: Path
) -> None:
    pids = tmp_path / "pids"
    app = make_app(
        one_doc(
            tmp_path,
            server.url("/post"),
            extra=command(program, "hang", str(pids)),
            service='timeout = "1s"\n',
        )
    )
    started = time.monotonic()
    result = check_source(app, app.config.sources()[0])
    assert (
        result.line()
        == f"doc/canonical: failed: command '{sys.executable}' did not finish within 2s; stopped"
    )
    assert time.monotonic() - started < 10
    assert ended(pids)


def test_a_program_that_prints_too_much_is_stopped(tmp_path: Path, server: Server, program: Path) -> None:
    app = make_app(
        one_doc(
            tmp_path, server.url("/post"), extra=command(program, "flood", "-"), service='max_bytes = "1MB"\n'
        )
    )
    result = check_source(app, app.config.sources()[0])
    assert result.line() == (
        f"doc/canonical: failed: command '{sys.executable}' printed more than 1,000,000 bytes (max_bytes); stopped"
    )


def test_a_helper_left_holding_the_output_does_not_hold_the_check(
    tmp_path: Path, server: Server, program: Path
) -> None:
    server.page("/post", PAGE)
    pid = tmp_path / "pid"
    app = make_app(
        one_doc(tmp_path, server.url("/post"), extra=command(program, "linger", str(pid), "{url}"))
    )
    started = time.monotonic()
    result = check_source(app, app.config.sources()[0])
    assert result.line() == "doc/canonical: new version 1 (first snapshot)"
    assert time.monotonic() - started < 10  # the grace after the program exited, not the 10 s deadline
    helper = int(pid.read_text())
    deadline = time.monotonic() + 5
    while alive(helper) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(helper)


def test_output_in_utf8_is_read_so_whatever_the_page_says_its_charset_is(
    tmp_path: Path, server: Server, program: Path
) -> None:
    """A browser prints its page in UTF-8 and keeps the page's own `<meta charset>`: the bytes win. Output that is
    not UTF-8 is read as the page says."""
    page = (tmp_path / "page.html").as_posix()
    utf8 = article('<p>Le café est prêt.</p><meta charset="windows-1252">')
    Path(page).write_bytes(utf8.encode())
    app = make_app(one_doc(tmp_path, server.url("/post"), extra=command(program, "bytes", page)))
    source = app.config.sources()[0]
    check_source(app, source)
    assert "Le café est prêt." in app.store.markdown(app.store.latest("doc/canonical"))  # type: ignore[arg-type]
    Path(page).write_bytes(utf8.replace("prêt", "servi à 10 h").encode("cp1252"))
    assert check_source(app, source).line() == "doc/canonical: new version 2 (1 change)"
    latest = app.store.latest("doc/canonical")
    assert "Le café est servi à 10 h." in app.store.markdown(latest)  # type: ignore[arg-type]
    assert latest.record["headers"] == {"content-type": "text/html"}  # type: ignore[union-attr]


def test_run_command_gives_what_the_program_printed(program: Path, tmp_path: Path) -> None:
    page = tmp_path / "page"
    page.write_bytes(b"\x00\xff binary is fine")
    assert run_command([sys.executable, str(program), "bytes", str(page)], deadline=10, limit=100) == (
        b"\x00\xff binary is fine"
    )
    with pytest.raises(FetchError, match="printed more than 10 bytes"):
        run_command([sys.executable, str(program), "bytes", str(page)], deadline=10, limit=10)
    with pytest.raises(FetchError, match=r"cannot be run \(not executable\)"):
        run_command([str(page)], deadline=10, limit=100)


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("command = []", "expected a program and its arguments, found no program"),
        ('command = ""', "expected a program and its arguments, found no program"),
        ("command = [1]", "expected a list of strings, found 1 as item 1"),
        ("command = 'chromium \"--dump-dom'", "does not split into words (No closing quotation)"),
        (
            'command = "chromium {url}"\nheaders = { Cookie = "a" }',
            "a source fetched by its command sends no headers of differ's; give them to the command",
        ),
    ],
)
def test_a_command_that_is_no_program_is_refused_in_one_line(tmp_path: Path, written: str, said: str) -> None:
    with pytest.raises(ConfigError) as info:
        one_doc(tmp_path, "https://blog.example.org/post", extra=written)
    assert said in str(info.value) and "\n" not in str(info.value)


def test_a_program_beside_the_config_is_found_there_and_tokens_are_not_recorded(
    tmp_path: Path, server: Server, program: Path
) -> None:
    server.page("/post", PAGE)
    (tmp_path / "bin").mkdir()
    script = tmp_path / "bin" / "render"
    script.write_text(f"#!{sys.executable}\n" + PROGRAM)
    script.chmod(0o755)
    config = one_doc(
        tmp_path,
        server.url("/post"),
        extra='command = ["bin/render", "fetch", "{url}", "--token=${RENDER_TOKEN}"]',
        env={"RENDER_TOKEN": "s3cret"},
    )
    source = config.sources()[0]
    assert source.command == (str(script), "fetch", "{url}", "--token=s3cret")
    assert "s3cret" not in repr(source)
    app = make_app(config)
    assert check_source(app, source).line() == "doc/canonical: new version 1 (first snapshot)"
    record = app.store.latest("doc/canonical").record  # type: ignore[union-attr]
    assert record["command"] == [str(script), "fetch", server.url("/post"), "--token=${RENDER_TOKEN}"]


def test_fetch_sources_and_log_name_the_program(tmp_path: Path, server: Server, program: Path) -> None:
    server.page("/post", PAGE)
    config = tmp_path / "config.toml"
    config.write_text(
        f'[service]\nsnapshots = "{tmp_path / "snapshots"}"\nper_host_delay = "0s"\n'
        f'[[documents]]\nid = "doc"\n[documents.canonical]\nurl = "{server.url("/post")}"\n'
        f"allow_private = true\n{command(program, 'fetch', '{url}')}\n"
    )
    out, err = io.StringIO(), io.StringIO()
    assert main(["--config", str(config), "fetch", "doc/canonical"], out=out, err=err, env={}) == ExitCode.OK
    name = Path(sys.executable).name
    assert err.getvalue().startswith(f"<!-- doc/canonical: printed by {name}, {len(PAGE.encode())} bytes, ")
    assert main(["--config", str(config), "check", "-q"], out=io.StringIO(), err=io.StringIO(), env={}) == 0
    out = io.StringIO()
    assert main(["--config", str(config), "sources"], out=out, env={}) == ExitCode.OK
    assert f"    fetched by: {sys.executable} {program} fetch '{{url}}'\n" in out.getvalue()
    out = io.StringIO()
    assert main(["--config", str(config), "log", "doc/canonical"], out=out, env={}) == ExitCode.OK
    [line] = [line for line in out.getvalue().splitlines() if "version 1" in line]
    assert "  exit 0  new  " in line


def test_the_program_waits_for_its_turn_at_the_host(tmp_path: Path, server: Server, program: Path) -> None:
    """Two pages of one host fetched by their programs at once, one connection a host: one after the other."""
    body = ""
    for name in ("a", "b"):
        server.routes[f"/{name}"] = Reply(body=PAGE.encode(), delay=0.5)
        body += (
            f'[[documents]]\nid = "{name}"\n[documents.canonical]\nurl = "{server.url("/" + name)}"\n'
            f"allow_private = true\n{command(program, 'fetch', '{url}')}\n"
        )
    app = make_app(make_config(tmp_path, body, "workers = 2\nper_host_connections = 1\n"))
    assert [r.outcome for r in check(app, app.config.sources())] == ["new", "new"]
    [a], [b] = server.requests_to("/a"), server.requests_to("/b")
    assert abs(a.at - b.at) >= 0.5  # the second program ran once the first had its page


NO_CHROMIUM = pytest.mark.skipif(
    shutil.which("chromium") is None, reason="no chromium here to run a page's scripts"
)


@pytest.fixture
def closed_proxy() -> Iterator[Proxy]:
    """Where a real browser's own requests (its vendor's services, asked on its own) go, and end: a proxy that
    serves 127.0.0.1 and the names it is given, and refuses the rest without resolving them."""
    proxy = Proxy(closed=True)
    yield proxy
    proxy.close()


@NO_CHROMIUM
def test_a_page_its_scripts_fill_in_is_read_as_a_browser_shows_it(
    tmp_path: Path, server: Server, closed_proxy: Proxy
) -> None:
    """The documented use, with a real headless browser: the page's text exists only once its script ran, in
    a page whose own charset (windows-1252) is not what the browser prints (UTF-8)."""
    page = (
        '<!DOCTYPE html><html><head><meta charset="windows-1252"><title>Release 3.0</title></head>'
        '<body><main id="app"></main><script>document.getElementById("app").innerHTML = '
        '"<article><h1>Release 3.0</h1><p>The café edition, with many fixes.</p></article>";</script></body></html>'
    )
    server.page("/post", page.encode("cp1252"), "text/html")
    browser = json.dumps(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            f"--proxy-server={closed_proxy.url()}",
            "--dump-dom",
            "{url}",
        ]
    )
    app = make_app(
        one_doc(tmp_path, server.url("/post"), extra=f"command = {browser}", service='timeout = "30s"\n')
    )
    assert (
        check_source(app, app.config.sources()[0]).line() == "doc/canonical: new version 1 (first snapshot)"
    )
    markdown = app.store.markdown(app.store.latest("doc/canonical"))  # type: ignore[arg-type]
    assert markdown == "# Release 3.0\n\nThe café edition, with many fixes.\n"


@NO_CHROMIUM
def test_a_real_browser_asks_for_the_page_through_differs_proxy(
    tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chromium on a server reads the proxy variables differ sets: a page at a name only the proxy resolves (an
    intranet's) is read through it, with no `--proxy-server` of its own."""
    resolver = socket.getaddrinfo

    def local(host: str, *args: object, **kw: object) -> object:
        if host == "release.corp.test":  # never asked of a name server
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return resolver(host, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", local)
    inside = Proxy(hosts={"release.corp.test": "127.0.0.1"}, closed=True)
    try:
        server.page("/post", PAGE)
        url = f"http://release.corp.test:{server.httpd.server_address[1]}/post"
        # it resolves no name itself (were the proxy not given it, nothing would be asked of a name server)
        browser = json.dumps(
            [
                "chromium",
                "--headless",
                "--no-sandbox",
                "--host-resolver-rules=MAP * 127.0.0.1:1, EXCLUDE 127.0.0.1",
                "--dump-dom",
                "{url}",
            ]
        )
        config = one_doc(
            tmp_path,
            url,
            extra=f"command = {browser}",
            service=f'timeout = "30s"\nproxy = "{inside.url()}"\n',
        )
        app = make_app(config)
        assert (
            check_source(app, config.sources()[0]).line() == "doc/canonical: new version 1 (first snapshot)"
        )
        assert f"GET {url}" in inside.seen
        assert [hit.path for hit in server.hits if hit.path != "/favicon.ico"] == ["/robots.txt", "/post"]
    finally:
        inside.close()


def test_a_printed_page_with_no_text_says_so_without_suggesting_a_browser(
    tmp_path: Path, server: Server, program: Path
) -> None:
    shell = tmp_path / "shell.html"
    shell.write_text('<html><body><div id="app"></div><script src="/app.js"></script></body></html>')
    app = make_app(one_doc(tmp_path, server.url("/post"), extra=command(program, "bytes", str(shell))))
    assert check_source(app, app.config.sources()[0]).line() == (
        "doc/canonical: failed: the page has no text as its command printed it"
    )


def test_a_check_waiting_on_a_program_ends_at_once_when_differ_stops(
    tmp_path: Path, server: Server, program: Path
) -> None:
    """`stop_all` (SIGTERM to `differ run`, Ctrl-C in `differ check`): the program and what it started are
    killed, and the check ends deferred, no failure of the page, nothing logged."""
    import threading

    from differ.fetch.command import stop_all

    pids = tmp_path / "pids"
    app = make_app(one_doc(tmp_path, server.url("/post"), extra=command(program, "hang", str(pids))))
    source = app.config.sources()[0]
    results: list[object] = []
    checking = threading.Thread(target=lambda: results.append(check_source(app, source)))
    checking.start()
    started(pids, 10)
    assert stop_all() == 1
    checking.join(timeout=10)
    [result] = results
    assert result.line() == (  # type: ignore[attr-defined]
        f"doc/canonical: deferred: command '{sys.executable}' stopped: differ is stopping; checked again next time"
    )
    assert (
        app.store.state("doc/canonical").get("failures") is None and app.store.fetches("doc/canonical") == []
    )
    assert ended(pids)


def test_differ_run_stops_at_once_on_sigterm_with_a_program_running(
    tmp_path: Path, server: Server, program: Path
) -> None:
    import signal
    import subprocess

    pids = tmp_path / "pids"
    config = hanging_config(tmp_path, server, program, pids)
    proc = subprocess.Popen(
        [sys.executable, "-m", "differ", "--config", str(config), "run"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    started(pids, 30)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=15)  # not the program's 120 s
    assert proc.returncode == 0, err
    assert "doc/canonical: deferred: command " in out and err.strip().endswith("differ: stopped")
    assert ended(pids)


def test_a_program_does_not_outlive_a_differ_killed_outright(
    tmp_path: Path, server: Server, program: Path
) -> None:
    """differ killed with SIGKILL (the OOM killer, `kill -9`) while a program runs: differ cannot stop it,
    so its reaper does, with what the program started."""
    import signal
    import subprocess

    pids = tmp_path / "pids"
    config = hanging_config(tmp_path, server, program, pids)
    proc = subprocess.Popen(
        [sys.executable, "-m", "differ", "--config", str(config), "check"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    started(pids, 30)
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=10) == -signal.SIGKILL
    assert ended(pids)


def test_config_check_notes_a_program_not_found_here(tmp_path: Path, program: Path) -> None:
    text = (
        '[[documents]]\nid = "a"\n[documents.canonical]\nurl = "https://blog.example.org/a"\n'
        'command = "differ-no-such-browser --dump-dom {url}"\n'
        '[[documents]]\nid = "b"\n[documents.canonical]\nurl = "https://blog.example.org/b"\n'
        f"{command(program, 'fetch', '{url}')}\n"
    )
    assert config_check(tmp_path, text) == (
        "CONFIG: ok (2 documents, 2 sources, 0 notifiers)\n"
        "note: a/canonical: its command's program differ-no-such-browser is not found here (not a file, nor on "
        "PATH); install it where differ runs\n"
    )
