"""A configuration read back from a store's records: what `differ history`, `show`, `diff`, `verify` and
`export` know of a copied `snapshots/` folder, or of a source taken out of config.toml."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from differ.config.model import Config, DocumentConfig, ServiceConfig, SourceConfig


def store_config(snapshots: Path, sources: Sequence[Mapping[str, Any]]) -> Config:
    """A configuration read back from a store alone, so that a copied `snapshots/` folder can be verified,
    listed, shown and diffed without the file that made it. `sources` are the newest records, one per source
    (`source`, `url`, and `document_title`, `role`, `kind` where recorded); the canonical is the source recorded
    as canonical, else the one named "canonical", else the first."""
    by_document: dict[str, list[SourceConfig]] = {}
    titles: dict[str, str] = {}
    for record in sources:
        document, source_id = str(record["source"]).split("/", 1)
        title = str(record.get("document_title") or document)
        titles.setdefault(document, title)
        by_document.setdefault(document, []).append(
            SourceConfig(
                document=document,
                id=source_id,
                url=str(record.get("url", "")),
                kind=str(record.get("kind", "html")),
                role=str(record.get("role", "")),
                title=title,
            )
        )
    documents = []
    for document, found_sources in by_document.items():
        recorded = [s for s in found_sources if s.role == "canonical"]
        named = [s for s in found_sources if s.id == "canonical"]
        canonical = (recorded or named or found_sources)[0]
        mirrors = tuple(replace(s, role="mirror") for s in found_sources if s is not canonical)
        documents.append(
            DocumentConfig(document, titles[document], replace(canonical, role="canonical"), mirrors)
        )
    return Config(
        path=snapshots / "config.toml", service=ServiceConfig(snapshots), documents=tuple(documents)
    )


def with_stored(config: Config, records: Sequence[Mapping[str, Any]]) -> Config:
    """`config` and the sources that only the store knows (their newest records, as `store_config` reads
    them): a removed mirror joins its document if that is still configured, a removed document comes whole."""
    stored = store_config(config.service.snapshots, records)
    documents = {d.id: d for d in config.documents}
    for d in stored.documents:
        kept = documents.get(d.id)
        if kept is None:
            documents[d.id] = d
            continue
        extra = tuple(
            replace(s, role="mirror", title=kept.canonical.title)
            for s in d.sources
            if s.id not in {k.id for k in kept.sources}
        )
        documents[d.id] = replace(kept, mirrors=kept.mirrors + extra)
    return replace(config, documents=tuple(documents.values()))
