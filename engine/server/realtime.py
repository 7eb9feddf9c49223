"""`GET /v1/realtime`: the part of OpenAI's Realtime WebSocket protocol a TTS can honour.

Text goes in (conversation items, or tokens through the `voice_tts.input_text_buffer.*`
extension events), audio and its transcript come out as OpenAI's response events. Everything a
TTS cannot do (audio input, tools, text output) is answered with an `error` event of OpenAI's
shape, never silence. docs/protocol.md lists every event.

A response speaks the text of the conversation items added since the previous response. Its
transcript deltas are the words as their audio starts (before that audio); a truncate makes the
item's transcript exactly the words heard by `audio_end_ms`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from typing import Any

import pydantic_core
from starlette.websockets import WebSocket

from engine.server.realtime_response import G711_TYPES, Response, SpokenItem, new_id
from engine.server.sender import Sender
from engine.server.speech_settings import OPENAI_VOICES
from engine.server.state import ServerState
from engine.server.websocket import WS_CLOSE_IDLE, Budget
from voice_tts.languages import iso_code
from voice_tts.protocol import SUPPORTED_SAMPLE_RATES, ErrorCode
from voice_tts.request import MARKUP_DIALECTS, checked_speed

VENDOR = "voice_tts"
APPEND = f"{VENDOR}.input_text_buffer.append"
COMMIT = f"{VENDOR}.input_text_buffer.commit"
UNSUPPORTED = {
    "input_audio_buffer.append": "audio input: this server speaks text, it does not listen",
    "input_audio_buffer.commit": "audio input: this server speaks text, it does not listen",
    "input_audio_buffer.clear": "audio input: this server speaks text, it does not listen",
    "output_audio_buffer.clear": "output_audio_buffer.clear is for WebRTC/SIP connections",
    "conversation.item.delete": "items are not deleted on this server",
    "transcription_session.update": "transcription: this server speaks text, it does not listen",
}


class RealtimeError(Exception):
    def __init__(self, code: str, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.param = param


class RealtimeConnection:
    def __init__(self, websocket: WebSocket, state: ServerState) -> None:
        self._websocket = websocket
        self.state = state
        self._sender = Sender(websocket, state.settings.max_client_lag_s)
        self.session: dict[str, Any] = {
            "type": "realtime",
            "object": "realtime.session",
            "id": new_id("sess"),
            "model": state.description.model,
            "output_modalities": ["audio"],
            "instructions": "",
            "audio": {
                "output": {"format": {"type": "audio/pcm", "rate": 24000}, "voice": None, "speed": 1.0}
            },
        }
        self._pending_text: list[str] = []  # text of items added since the last response
        self._pending_chars = 0
        settings = state.settings
        self._budget = Budget(settings.max_messages_per_s, settings.message_burst)
        self.items: collections.OrderedDict[str, SpokenItem] = collections.OrderedDict()
        self.response: Response | None = None
        self.last_item_id: str | None = None
        # A response went out to `response.done`: later ones are opened ahead of new sessions'
        # (engine/server/stream_priority.py).
        self.established = False

    async def serve(self) -> None:
        await self._websocket.accept()
        await self.send_event("session.created", session=self.session)
        idle = self.state.settings.ws_idle_timeout_s
        try:
            while True:
                try:
                    message = await asyncio.wait_for(self._websocket.receive(), idle)
                except TimeoutError:
                    if self.response is not None:
                        continue  # a response in progress keeps the socket however long
                    self.state.metrics.errors.labels(code=ErrorCode.IDLE_TIMEOUT).inc()
                    reason = f"{ErrorCode.IDLE_TIMEOUT}: no event for {idle:g} s"
                    await self._sender.close(WS_CLOSE_IDLE, reason)
                    break
                if message["type"] == "websocket.disconnect":
                    break
                await self._budget.take()
                client_event_id = None
                try:
                    event = self._parse(message)
                    client_event_id = event.get("event_id")
                    await self._handle(event)
                except RealtimeError as error:
                    await self._error(error, client_event_id)
        finally:
            self._sender.closed = True
            if self.response is not None:
                self.response.cancel()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.shield(self.response.task), 10)

    # -- messages in -------------------------------------------------------------------

    def _parse(self, message: dict) -> dict:
        text = message.get("text")
        if text is None:
            raise RealtimeError("invalid_event", "send events as JSON text frames")
        limit = self.state.settings.max_message_bytes
        if len(text) > limit:
            raise RealtimeError("invalid_event", f"the event is larger than {limit} bytes")
        try:
            event = pydantic_core.from_json(text, allow_inf_nan=False)
        except ValueError as exc:
            raise RealtimeError("invalid_json", f"the event is not JSON: {exc}") from None
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise RealtimeError("invalid_event", "an event is a JSON object with a 'type'", "type")
        return event

    async def _handle(self, event: dict) -> None:
        kind = event["type"]
        handler = {
            "session.update": self._session_update,
            "conversation.item.create": self._item_create,
            "conversation.item.truncate": self._item_truncate,
            "conversation.item.retrieve": self._item_retrieve,
            "response.create": self._response_create,
            "response.cancel": self._response_cancel,
            APPEND: self._text_append,
            COMMIT: self._text_commit,
        }.get(kind)
        if handler is not None:
            await handler(event)
        elif kind in UNSUPPORTED:
            raise RealtimeError(
                "unsupported_event", f"{kind} is not supported: {UNSUPPORTED[kind]}"
            )
        else:
            raise RealtimeError(
                "unknown_event",
                f"unknown event type {kind!r}; this server takes session.update, "
                f"conversation.item.create, conversation.item.truncate, "
                f"conversation.item.retrieve, response.create, "
                f"response.cancel, {APPEND} and {COMMIT}",
                "type",
            )

    async def _session_update(self, event: dict) -> None:
        update = event.get("session")
        if not isinstance(update, dict):
            raise RealtimeError(
                "invalid_value", "session.update needs a 'session' object", "session"
            )
        session = {**self.session, "audio": {"output": dict(self.session["audio"]["output"])}}
        for key, value in update.items():
            if key in ("type", "model"):
                continue
            if key == "instructions":
                if not isinstance(value, str):
                    raise RealtimeError(
                        "invalid_value", "instructions must be a string", "session.instructions"
                    )
                session["instructions"] = value
            elif key == "output_modalities":
                if value != ["audio"]:
                    raise RealtimeError(
                        "unsupported_value",
                        "output_modalities must be ['audio']: this server speaks, "
                        "it does not write",
                        "session.output_modalities",
                    )
            elif key == "audio":
                self._update_audio(session, value)
            elif key in ("tools", "tool_choice") and not value:
                continue
            elif key in ("tools", "tool_choice", "prompt", "reasoning"):
                raise RealtimeError(
                    "unsupported_value", f"session.{key} is not supported: a TTS calls no tools",
                    f"session.{key}",
                )
            else:
                raise RealtimeError(
                    "unsupported_value", f"session.{key} is not supported by this server",
                    f"session.{key}",
                )
        if self.response is not None:
            # Unlike OpenAI's (between responses only), a running response takes it from its next chunk.
            try:
                self.response.set_speed(session["audio"]["output"]["speed"])
            except ValueError as exc:  # no Rubber Band: the `speed` extra is missing
                raise RealtimeError(getattr(exc, "code", "invalid_value"), str(exc), "session.audio.output.speed") from None
        self.session = session
        await self.send_event("session.updated", session=session)

    def _update_audio(self, session: dict, audio: Any) -> None:
        if not isinstance(audio, dict):
            raise RealtimeError("invalid_value", "session.audio must be an object", "session.audio")
        if audio.get("input"):
            raise RealtimeError(
                "unsupported_value",
                "session.audio.input is not supported: this server does not listen",
                "session.audio.input",
            )
        output = audio.get("output") or {}
        if "voice" in output:
            voice = output["voice"]
            if isinstance(voice, dict):
                voice = voice.get("id")
            if not self.state.description.knows_voice(voice) and voice not in OPENAI_VOICES:
                names = [v.name for v in self.state.description.listed_voices]
                raise RealtimeError(
                    "invalid_value", f"unknown voice {voice!r}; voices: {names}",
                    "session.audio.output.voice",
                )
            session["audio"]["output"]["voice"] = voice
        if "format" in output:
            session["audio"]["output"]["format"] = _output_format(output["format"])
        if "language" in output:
            session["audio"]["output"]["language"] = self._language(output["language"])
        if "speed" in output:
            try:
                session["audio"]["output"]["speed"] = checked_speed(output["speed"])
            except ValueError as exc:
                raise RealtimeError("invalid_value", str(exc), "session.audio.output.speed") from None
        if "markup" in output:  # extension: the responses' text carries expressive tags
            if output["markup"] is not None and output["markup"] not in MARKUP_DIALECTS:
                raise RealtimeError(
                    "invalid_value", f"markup must be one of {list(MARKUP_DIALECTS)} or null",
                    "session.audio.output.markup",
                )
            session["audio"]["output"]["markup"] = output["markup"]
        for key in output:
            if key not in ("voice", "format", "language", "speed", "markup"):
                raise RealtimeError(
                    "unsupported_value", f"session.audio.output.{key} is not supported",
                    f"session.audio.output.{key}",
                )

    def _language(self, language: Any) -> str | None:
        """Extension: the responses' language (an ISO code, BCP 47 tag or Qwen3 name), for the
        engine and the normalizer's rules; None lets the engine and normalizer go by the script."""
        if language is None:
            return None
        known = self.state.description.languages
        if not isinstance(language, str) or (iso_code(language) is None and language.lower() not in known):
            raise RealtimeError(
                "invalid_value",
                f"unknown language {language!r}; use an ISO code or tag ('de', 'ja-JP'), 'auto' or one of {list(known)}",
                "session.audio.output.language",
            )
        return language

    async def _item_create(self, event: dict) -> None:
        item = event.get("item")
        if not isinstance(item, dict) or item.get("type") != "message":
            raise RealtimeError(
                "unsupported_value",
                "only message items with text can be spoken (no function calls or audio)",
                "item.type",
            )
        parts = item.get("content")
        if not isinstance(parts, list) or not parts:
            raise RealtimeError(
                "invalid_value", "item.content must list text parts", "item.content"
            )
        texts = []
        for part in parts:
            kind = part.get("type") if isinstance(part, dict) else None
            if kind not in ("input_text", "output_text", "text") or not isinstance(
                part.get("text"), str
            ):
                raise RealtimeError(
                    "unsupported_value",
                    f"content part {kind!r} cannot be spoken: use input_text or output_text",
                    "item.content",
                )
            texts.append(part["text"])
        text = "".join(texts)
        limit = self.state.settings.max_turn_text_chars
        if self._pending_chars + len(text) > limit:
            raise RealtimeError(
                "text_too_long",
                f"the next response would exceed {limit} characters; this item was dropped",
                "item.content",
            )
        self._pending_text.append(text)
        self._pending_chars += len(text)
        item_id = item.get("id") or new_id("item")
        stored = {**item, "id": item_id, "object": "realtime.item", "status": "completed"}
        await self.send_event(
            "conversation.item.added", previous_item_id=self.last_item_id, item=stored
        )
        await self.send_event(
            "conversation.item.done", previous_item_id=self.last_item_id, item=stored
        )
        self.last_item_id = item_id

    async def _item_truncate(self, event: dict) -> None:
        item = self.items.get(event.get("item_id"))
        if item is None:
            raise RealtimeError(
                "item_not_found", f"no spoken item {event.get('item_id')!r} to truncate", "item_id"
            )
        audio_end_ms = event.get("audio_end_ms")
        if not isinstance(audio_end_ms, int) or audio_end_ms < 0:
            raise RealtimeError(
                "invalid_value", "audio_end_ms must be a non-negative integer", "audio_end_ms"
            )
        if event.get("content_index", 0) != 0:
            raise RealtimeError(
                "invalid_value", "a spoken item has one content part (index 0)", "content_index"
            )
        response = self.response
        if response is not None and response.item is item:
            response.cancel()
            await response.task
        if audio_end_ms > item.audio_ms + 1:
            raise RealtimeError(
                "invalid_value",
                f"audio_end_ms {audio_end_ms} is past the item's {item.audio_ms:.0f} ms of audio",
                "audio_end_ms",
            )
        item.transcript = item.text.heard_text(audio_end_ms / 1000.0)
        await self.send_event(
            "conversation.item.truncated",
            item_id=item.id,
            content_index=0,
            audio_end_ms=audio_end_ms,
        )

    async def _item_retrieve(self, event: dict) -> None:
        """A spoken item with its transcript (after a truncate, the words heard); no audio."""
        item = self.items.get(event.get("item_id"))
        if item is None:
            raise RealtimeError(
                "item_not_found", f"no spoken item {event.get('item_id')!r} is kept", "item_id"
            )
        await self.send_event("conversation.item.retrieved", item=item.as_json("completed"))

    async def _response_create(self, event: dict) -> None:
        options = event.get("response") or {}
        if not isinstance(options, dict):
            raise RealtimeError("invalid_value", "response must be an object", "response")
        if options.get("output_modalities", ["audio"]) != ["audio"]:
            raise RealtimeError(
                "unsupported_value", "responses are audio only", "response.output_modalities"
            )
        if options.get("tools"):
            raise RealtimeError("unsupported_value", "a TTS calls no tools", "response.tools")
        response = await self._open_response(options.get("instructions"))
        text, self._pending_text, self._pending_chars = "".join(self._pending_text), [], 0
        response.push(text)
        response.end_input()

    async def _response_cancel(self, event: dict) -> None:
        response = self.response
        if response is None or (event.get("response_id") not in (None, response.id)):
            raise RealtimeError(
                "response_cancel_not_active", "there is no active response to cancel", "response_id"
            )
        response.cancel()

    async def _text_append(self, event: dict) -> None:
        delta = event.get("delta")
        if not isinstance(delta, str):
            raise RealtimeError("invalid_value", "delta must be a string", "delta")
        response = self.response
        if response is None or response.input_ended:
            response = await self._open_response(None)
        limit = self.state.settings.max_turn_text_chars
        if response.text.raw_length + len(delta) > limit:
            raise RealtimeError(
                "text_too_long", f"the response would exceed {limit} characters; dropped", "delta"
            )
        response.push(delta)

    async def _text_commit(self, event: dict) -> None:
        response = self.response
        if response is None or response.input_ended:
            raise RealtimeError(
                "input_text_buffer_empty", f"nothing was appended with {APPEND} to commit"
            )
        response.end_input()

    async def _open_response(self, instructions: str | None) -> Response:
        state = self.state
        if self.response is not None:
            raise RealtimeError(
                "conversation_already_has_active_response",
                f"response {self.response.id} is still in progress: "
                "cancel it or wait for response.done",
            )
        if (refusal := state.readiness.refusal()) is not None:
            raise RealtimeError(*refusal)
        if not state.slots.acquire():
            raise RealtimeError(ErrorCode.CAPACITY, f"all {state.slots.capacity} streams are busy")
        try:
            response = Response(self, instructions or self.session["instructions"] or None)
        except Exception as exc:
            state.slots.release()
            raise RealtimeError(getattr(exc, "code", ErrorCode.ENGINE_ERROR), str(exc)) from None
        self.response = response
        await response.announce()
        response.task = asyncio.create_task(response.run())
        return response

    # -- messages out ------------------------------------------------------------------

    async def send_event(self, kind: str, **fields) -> bool:
        """True if the event went out (the client is there and keeping up)."""
        return await self._sender.json({"type": kind, "event_id": new_id("event"), **fields})

    async def _error(self, error: RealtimeError, client_event_id: str | None) -> None:
        self.state.metrics.errors.labels(code=error.code).inc()
        await self.send_event(
            "error",
            error={
                "type": "invalid_request_error",
                "code": error.code,
                "message": str(error),
                "param": error.param,
                "event_id": client_event_id,
            },
        )


def _output_format(value: Any) -> dict:
    if not isinstance(value, dict):
        raise RealtimeError(
            "invalid_value", "format must be an object", "session.audio.output.format"
        )
    kind = value.get("type")
    if kind == "audio/pcm":
        rate = value.get("rate", 24000)
        if rate not in SUPPORTED_SAMPLE_RATES:
            raise RealtimeError(
                "invalid_value",
                f"rate {rate} is not one of {list(SUPPORTED_SAMPLE_RATES)}",
                "session.audio.output.format.rate",
            )
        return {"type": "audio/pcm", "rate": rate}
    if kind in G711_TYPES:
        return {"type": kind}
    raise RealtimeError(
        "unsupported_value",
        f"output format {kind!r} is not supported; use audio/pcm, audio/pcmu or audio/pcma",
        "session.audio.output.format.type",
    )
