"""Following a blog's feed: the posts that come into a feed's list of posts (`entry = "*"`) with `follow` set, each
added to config.toml as a document of its own, as `differ add` adds a page, after the check that found them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from differ.options import web_address

if TYPE_CHECKING:
    from differ.app import App
    from differ.checked import CheckResult
    from differ.config import SourceConfig


# What a followed feed's new posts are fetched with as the feed is (a blog on the intranet, behind a header);
# its `follow_with` adds to them and overrides them.
CARRIED = ("headers", "interval", "robots", "allow_private")


def follow(
    app: App, source: SourceConfig, result: CheckResult, state: dict[str, Any]
) -> list[dict[str, str]]:
    """The posts that came into a followed feed's list (`follow` on a feed watched with entry = "*") since the
    last version followed, whose titles have one of its words, each added to the configuration as a document of
    its own, as `differ add` adds a page (one watched already is left as it is): the new sources' keys, the
    posts' addresses and titles. The version followed is kept only once the file is written, so a process that
    dies between follows it again, adding nothing twice."""
    patterns = source.option("follow") if source.kind == "feed" else None
    if not patterns:
        return []
    from differ.diff.narrow import words_in  # here: a check of pages that follow nothing loads no diff
    from differ.edit import Page, add_documents, written_options

    latest = app.store.latest_number(source.key)
    kept = state.get("followed")
    if "followed" not in state:  # set just now: this check's new posts are followed, none from before
        new = result.outcome == "new" and result.previous is not None
        state["followed"] = result.previous if new else latest
    start = max(1, int(state["followed"]))
    posts: dict[str, str] = {}
    if start < latest:
        known = _listed_posts(app.store.markdown(app.store.version(source.key, start)))
        for number in range(start + 1, latest + 1):
            listed = _listed_posts(app.store.markdown(app.store.version(source.key, number)))
            for url, title in listed.items():
                if url not in known and web_address(url) and words_in([title], patterns):
                    posts.setdefault(url, title)
            known |= listed
    added: list[dict[str, str]] = []
    if posts:
        written = written_options(app.config.path, source.key, app.env)  # its `${NAME}`s as written
        settings = {name: written[name] for name in CARRIED if name in written}
        settings.update(written.get("follow_with") or {})
        kind = settings.pop("kind", None)
        pages = [Page(url, title=title, kind=kind, settings=settings) for url, title in posts.items()]
        done = add_documents(app.config.path, pages, app.env, skip_watched=True)
        new_pages = [page for page in pages if page.url not in done.watched]
        added = [
            {"source": made.key, "url": page.url, "title": page.title or ""}
            for made, page in zip(done.sources, new_pages, strict=True)
        ]
    if kept != latest:  # a check that found no new version writes nothing
        state["followed"] = latest
        app.store.save_state(source.key, state)
    return added


def _listed_posts(markdown: str) -> dict[str, str]:
    """The posts a feed's list of posts names (`entry = "*"`): each item that is one link, its address and title.
    A new post is an address the list did not have, however the diff pairs the items around it."""
    from differ.diff.blocks import split_blocks

    return {
        block.whole_link: block.text
        for block in split_blocks(markdown)
        if block.kind == "item" and block.whole_link
    }
