"""Errors, both ways: a code (the contract) and the message a player reads, worded from the
catalogs (``server.i18n``: ``error.<code>``, or a variant's key, with its arguments; a
refused move's ``reason.<reason>``) in the language the client speaks; and the websocket
close codes (docs/protocol.md, "Error codes")."""

from __future__ import annotations

from typing import Any

from ..i18n import DEFAULT, Args, catalog, has, reason_text, words
from .outgoing import Error, encode

# code -> Spanish message a player can read (the default language's catalog, issue 28)
MESSAGES_ES: dict[str, str] = {
    key.removeprefix("error."): text
    for key, text in catalog(DEFAULT).items()
    if key.startswith("error.") and key.count(".") == 1
}


# websocket close codes (docs/protocol.md)
CLOSE_NORMAL = 1000
CLOSE_POLICY = 1008
CLOSE_SERVER_ERROR = 1011
CLOSE_RECONNECT = 1012  # "service restart": reconnect (to any process) and resume
CLOSE_SEAT_MOVED = 4000


class ProtocolError(Exception):
    """A message the server answers with an error; nothing changed. ``key``: the catalog's
    text (``error.<code>`` unless a variant says more), ``args`` its placeholders;
    ``said``: words of the default language (Spanish) the catalogs do not hold; given as
    ``key``, a text that is not a key is ``said``. Other languages get the catalog's
    ``error.<code>`` instead. A refused move (``illegal``) names its ``reason`` and the
    engine's arguments (``args``: ``{"card": "10d"}``...), which the catalogs word in each
    language (``reason.<reason>``) and the frame carries."""

    def __init__(
        self,
        code: str,
        key: str | None = None,
        *,
        args: Args | None = None,
        id: str | None = None,
        reason: str | None = None,
        said: str | None = None,
    ) -> None:
        super().__init__(code)
        self.code = code
        if key is not None and not has(key):  # words of its own, in the default language
            key, said = None, key
        self.key = key
        self.values = dict(args or {})
        self.id = id
        self.reason = reason
        self.said = said

    def message_in(self, lang: str = DEFAULT) -> str:
        """The message in ``lang`` (a language of the catalogs)."""
        return message_of(
            self.code, lang, key=self.key, args=self.values, reason=self.reason, said=self.said
        )

    @property
    def message(self) -> str:
        """The message in the default language (Spanish)."""
        return self.message_in(DEFAULT)

    def to_message(self, lang: str = DEFAULT) -> Error:
        # a refusal carries its arguments (a room's answer is worded again by each socket,
        # in its player's language: server.web.session.reworded)
        args = self.values or None if self.reason is not None else None
        return Error(self.code, self.message_in(lang), self.id, self.reason, args)

    def to_text(self, lang: str = DEFAULT) -> str:
        return encode(self.to_message(lang))


def message_of(
    code: str,
    lang: str = DEFAULT,
    *,
    key: str | None = None,
    args: Args | None = None,
    reason: str | None = None,
    said: str | None = None,
) -> str:
    """An error's message in ``lang``: words of its own (``said``, in the default language)
    for the default language; else a refused move's reason as the catalogs word it with its
    arguments (the engine's: the card, the items, the value), else the variant's key, else
    ``error.<code>`` (``server_error``'s for an unknown code)."""
    if said is not None and lang == DEFAULT:
        return said
    if reason is not None and has(f"reason.{reason}"):
        return reason_text(reason, lang, args)
    if key is None:
        key = f"error.{code}" if has(f"error.{code}") else "error.server_error"
    return words(key, lang, args)


class ApiError(ProtocolError):
    """An HTTP API error: the same code + message. The web layer picks the status from the
    code (``app.STATUS``) unless it set one itself (``status``)."""

    def __init__(
        self,
        code: str,
        key: str | None = None,
        *,
        args: Args | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(code, key, args=args)
        self.status = status

    def body(self, lang: str = DEFAULT) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message_in(lang)}}


def watchers_full(cap: int) -> ProtocolError:
    """The answer to one watcher more than a room admits."""
    return ProtocolError("watchers_full", "error.watchers_full.cap", args={"n": cap})
