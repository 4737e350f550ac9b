"""The language server's wiring (pygls): document sync, diagnostics, code actions, hover, completion.

Linting runs on the server's one event loop, so the monkeypatched reads of the warm store
(netlint/server/store.py) never overlap. A failure inside a handler is logged to the client and
leaves the previous diagnostics in place; it never stops the server.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from lsprotocol import types as t
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from netlint import __version__
from netlint.server.store import Store

log = logging.getLogger("netlint.server")
# A file whose last lint took SLOW_SECONDS or more (a switch that is context for a large repository)
# is linted once edits have paused for SETTLE_SECONDS, on the last text: otherwise a keystroke burst
# queues one full run per keystroke. A fast file is linted at once (no added latency).
SLOW_SECONDS = 0.05
SETTLE_SECONDS = 0.15
CODE_ACTION_KINDS = [t.CodeActionKind.QuickFix, t.CodeActionKind.SourceFixAll, "source.fixAll.netlint"]


class Session:
    """What the server knows between requests: the warm store and each open document's findings."""

    def __init__(self, server: LanguageServer):
        self.server = server
        self.store = Store()
        self.uris: dict[str, str] = {}      # real path -> the client's URI of an open document
        self.pairs: dict[str, list] = {}    # URI -> [(finding, diagnostic)] last published
        self.linted: dict[str, object] = {}  # URI -> Linted
        self.pending: dict[str, object] = {}  # URI -> asyncio timer of a lint not run yet
        self.cost: dict[str, float] = {}      # URI -> seconds its last re-lint took (dependents included)

    @staticmethod
    def path_of(uri: str) -> str | None:
        fs = to_fs_path(uri) if uri.startswith("file:") else None
        return os.path.realpath(fs) if fs else None

    # --- documents -----------------------------------------------------------------------------
    def opened(self, uri: str) -> None:
        path = self.path_of(uri)
        if path is None:
            return
        self.uris[path] = uri
        self.store.put(path, self.server.workspace.get_text_document(uri).source)
        self.publish(uri)

    def changed(self, uri: str, settle: bool = True) -> None:
        """The buffer changed: lint it (and the open files that read it) once edits settle."""
        import asyncio

        path = self.path_of(uri)
        if path is None:
            return
        self.store.put(path, self.server.workspace.get_text_document(uri).source)
        timer = self.pending.pop(uri, None)
        if timer is not None:
            timer.cancel()
        try:
            slow = settle and self.cost.get(uri, 0.0) >= SLOW_SECONDS
            loop = asyncio.get_running_loop() if slow else None
        except RuntimeError:  # not on the server's loop (called directly)
            loop = None
        if loop is None:
            self._relint(uri, path)
        else:
            self.pending[uri] = loop.call_later(SETTLE_SECONDS, self._relint, uri, path)

    def settle(self, uri: str) -> None:
        """Run a pending lint of ``uri`` now: a code action or hover must see the current text."""
        timer = self.pending.pop(uri, None)
        if timer is not None:
            timer.cancel()
            self._relint(uri, self.path_of(uri))

    def _relint(self, uri: str, path: str) -> None:
        import time

        self.pending.pop(uri, None)
        if path not in self.store.buffers:  # closed meanwhile
            return
        start = time.perf_counter()
        self.publish(uri)
        self.republish_dependents(path)
        self.cost[uri] = time.perf_counter() - start

    def closed(self, uri: str) -> None:
        path = self.path_of(uri)
        if path is None:
            return
        dependents = self.store.dependents(path)
        timer = self.pending.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self.store.close(path)
        self.uris.pop(path, None)
        self.pairs.pop(uri, None)
        self.linted.pop(uri, None)
        self.cost.pop(uri, None)
        self.server.text_document_publish_diagnostics(t.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        for dep in dependents:  # they read the buffer; now they read the disk again
            self.publish(self.uris[dep])

    def files_changed(self, changes: list[t.FileEvent]) -> None:
        """A watched file changed on disk. Open documents keep their buffer; documents that read the
        file are linted again, and every open one when files appear or disappear (new context)."""
        todo: list[str] = []
        for change in changes:
            path = self.path_of(change.uri)
            if path is None or path in self.store.buffers:
                continue
            if change.type != t.FileChangeType.Changed:
                todo = list(self.uris)
                break
            todo.extend(p for p in self.store.dependents(path) if p not in todo)
        for path in todo:
            if path in self.uris:
                self.publish(self.uris[path])

    def republish_dependents(self, path: str) -> None:
        for dep in self.store.dependents(path):
            if dep in self.uris:
                self.publish(self.uris[dep])

    # --- diagnostics ---------------------------------------------------------------------------
    def publish(self, uri: str) -> None:
        from netlint.server.diagnostics import to_diagnostic

        path = self.path_of(uri)
        doc = self.server.workspace.get_text_document(uri)
        try:
            linted = self.store.lint(path)
        except Exception as exc:  # a netlint bug: say so, keep serving
            log.exception("lint of %s failed", uri)
            self.server.window_log_message(t.LogMessageParams(
                t.MessageType.Error, f"netlint: internal error linting {uri}: {type(exc).__name__}: {exc}"))
            return
        for err in linted.errors:
            self.server.window_log_message(t.LogMessageParams(
                t.MessageType.Warning, f"netlint: {err.span.file}:{err.span.line}: {err.code} {err.message}"))
        root = linted.report.config.root
        codec = doc.position_codec
        lines = list(doc.lines)

        def related_place(span):
            from netlint.server.diagnostics import lines_of

            real = os.path.realpath(root / span.file)
            other = self.uris.get(real)
            if other is not None:
                return other, list(self.server.workspace.get_text_document(other).lines)
            text = linted.report.workspace.text(span.file)
            if text is None:
                return None
            return Path(real).as_uri(), lines_of(text)

        docs_url = getattr(linted.report.config.settings, "docs_url", None)
        # A netlint configuration that does not load (NL008) stops every run: shown on the file itself.
        errors = [e for e in linted.errors if os.path.realpath(root / e.span.file) == path]
        pairs = []
        for f in [*linted.findings, *errors]:
            if f.suppressed:
                continue
            pairs.append((f, to_diagnostic(f, lines, codec, related_place, docs_url)))
        self.pairs[uri] = pairs
        self.linted[uri] = linted
        self.server.text_document_publish_diagnostics(t.PublishDiagnosticsParams(
            uri=uri, diagnostics=[d for _, d in pairs], version=doc.version))


def build() -> LanguageServer:
    server = LanguageServer("netlint", __version__, text_document_sync_kind=t.TextDocumentSyncKind.Incremental)
    session = Session(server)
    server.session = session  # for tests driving it in-process

    @server.feature(t.INITIALIZED)
    def initialized(ls: LanguageServer, params: t.InitializedParams) -> None:
        caps = ls.client_capabilities.workspace
        watch = caps.did_change_watched_files if caps else None
        if watch is not None and watch.dynamic_registration:
            ls.client_register_capability(t.RegistrationParams(registrations=[t.Registration(
                id="netlint-watch", method=t.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=t.DidChangeWatchedFilesRegistrationOptions(
                    watchers=[t.FileSystemWatcher(glob_pattern="**/*")]))]))

    @server.feature(t.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: t.DidOpenTextDocumentParams) -> None:
        session.opened(params.text_document.uri)

    @server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: t.DidChangeTextDocumentParams) -> None:
        session.changed(params.text_document.uri)

    @server.feature(t.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LanguageServer, params: t.DidSaveTextDocumentParams) -> None:
        session.changed(params.text_document.uri, settle=False)

    @server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LanguageServer, params: t.DidCloseTextDocumentParams) -> None:
        session.closed(params.text_document.uri)

    @server.feature(t.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched(ls: LanguageServer, params: t.DidChangeWatchedFilesParams) -> None:
        session.files_changed(params.changes)

    @server.feature(t.TEXT_DOCUMENT_CODE_ACTION, t.CodeActionOptions(code_action_kinds=CODE_ACTION_KINDS))
    def code_action(ls: LanguageServer, params: t.CodeActionParams) -> list[t.CodeAction] | None:
        from netlint.server.actions import code_actions

        uri = params.text_document.uri
        session.settle(uri)
        linted = session.linted.get(uri)
        if linted is None:
            return None
        doc = ls.workspace.get_text_document(uri)
        return code_actions(uri, linted, session.pairs.get(uri, []), params, doc.position_codec, doc.source)

    @server.feature(t.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: LanguageServer, params: t.HoverParams) -> t.Hover | None:
        from netlint.server.hover import hover

        session.settle(params.text_document.uri)
        doc = ls.workspace.get_text_document(params.text_document.uri)
        lines = list(doc.lines)
        if params.position.line >= len(lines):
            return None
        pos = doc.position_codec.position_from_client_units(lines, params.position)
        client_pairs = session.pairs.get(params.text_document.uri, [])
        server_pairs = [(f, _server_diag(d, lines, doc.position_codec)) for f, d in client_pairs]
        return hover(server_pairs, lines[params.position.line], t.Position(pos.line, pos.character))

    @server.feature(t.TEXT_DOCUMENT_COMPLETION, t.CompletionOptions(trigger_characters=["_", "-", "="]))
    def on_completion(ls: LanguageServer, params: t.CompletionParams) -> t.CompletionList:
        from netlint.server.completion import complete

        doc = ls.workspace.get_text_document(params.text_document.uri)
        lines = list(doc.lines)
        if params.position.line >= len(lines):
            return t.CompletionList(is_incomplete=False, items=[])
        pos = doc.position_codec.position_from_client_units(lines, params.position)
        before = lines[pos.line][:pos.character]
        items = complete(to_fs_path(params.text_document.uri) or "", doc.source, before, pos.line)
        for item in items:
            if item.text_edit is not None:
                item.text_edit.range = doc.position_codec.range_to_client_units(lines, item.text_edit.range)
        return t.CompletionList(is_incomplete=False, items=items)

    return server


def _server_diag(d: t.Diagnostic, lines: list[str], codec) -> t.Diagnostic:
    return t.Diagnostic(range=codec.range_from_client_units(lines, d.range), message=d.message)


def main() -> int:
    build().start_io()
    return 0
