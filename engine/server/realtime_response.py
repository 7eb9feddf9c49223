"""A Realtime response (`response.create`, or text appended with the `voice_tts` extension
events): one engine stream through its output pipeline, its audio and transcript sent as
OpenAI's response events, its usage logged; and the spoken items a truncate can still reach.
engine/server/realtime.py holds the connection: its events, session and conversation items."""

from __future__ import annotations

import asyncio
import base64
import collections
import contextlib
import logging
import uuid
from typing import Any, Protocol

from engine.server.speech_settings import OPENAI_VOICES
from engine.server.state import ServerState
from engine.server.route_stream import open_output_stream
from engine.server.stream_priority import stream_priority
from voice_tts.protocol import Error, ErrorCode, push_spoken
from voice_tts.request import StreamRequest
from voice_tts.stream_output import AudioOut, Finished, WordsOut
from voice_tts.turn_text import TurnText

log = logging.getLogger(__name__)

# Items whose transcript a truncate can still reach; older ones are forgotten.
KEPT_ITEMS = 64
# Realtime's G.711 output formats (8 kHz) and the stream encodings they are.
G711_TYPES = {"audio/pcmu": "mulaw", "audio/pcma": "alaw"}
# `usage.output_tokens` counts audio in the codec's 80 ms frames, as speech's SSE usage does.
OUTPUT_TOKENS_PER_SECOND = 12.5


class Conversation(Protocol):
    """What a response needs of its connection (`RealtimeConnection`)."""

    state: ServerState
    session: dict[str, Any]
    established: bool
    last_item_id: str | None
    items: collections.OrderedDict[str, SpokenItem]
    response: Response | None

    async def send_event(self, kind: str, **fields) -> bool: ...


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:20]}"


class SpokenItem:
    """An assistant item a response spoke: its text side answers truncates."""

    def __init__(self, item_id: str, text: TurnText) -> None:
        self.id = item_id
        self.text = text
        self.transcript = ""
        self.audio_ms = 0.0

    def as_json(self, status: str) -> dict:
        return {
            "id": self.id,
            "object": "realtime.item",
            "type": "message",
            "role": "assistant",
            "status": status,
            "content": [{"type": "output_audio", "transcript": self.transcript}],
        }


class Response:
    def __init__(self, connection: Conversation, instructions: str | None) -> None:
        self._connection = connection
        state = connection.state
        self._state = state
        output = connection.session["audio"]["output"]
        audio_format = output["format"]
        g711 = G711_TYPES.get(audio_format["type"])
        self.sample_rate = 8000 if g711 else audio_format.get("rate", 24000)
        voice = output["voice"]
        self.voice = None if voice in OPENAI_VOICES else voice
        self.id = new_id("resp")
        request = StreamRequest(
            voice=self.voice,
            language=output.get("language"),
            instruct=instructions,
            sample_rate=self.sample_rate,
            format=g711 or "pcm16",
            normalize=True,
            priority=stream_priority(connection.established),
            speed=output["speed"],
            markup=output.get("markup"),
        )
        self.usage = state.stream_usage("realtime", self.id, self.voice)
        self._stream, self.output = open_output_stream(state, request, self.usage)
        self.text = self.output.text
        self.item = SpokenItem(new_id("item"), self.text)
        self.input_ended = False
        self._cancelled = False
        self.task: asyncio.Task | None = None

    def push(self, text: str) -> None:
        if text and not self.input_ended:
            self.usage.text_arrived()
            self._forward(self.text.push(text))

    def _forward(self, spoken: str) -> None:
        # One push per delta: an engine looks at its pending text on every push.
        push_spoken(self._stream, spoken, self.text.word_end, self.text.space_follows)

    def end_input(self) -> None:
        if not self.input_ended:
            self.input_ended = True
            self._forward(self.text.flush())
            self._stream.end_input()

    def set_speed(self, speed: float) -> None:
        if not self._cancelled:
            self.output.set_speed(speed)

    def cancel(self) -> None:
        if not self._cancelled:
            self._cancelled = True
            self.input_ended = True
            self.output.cancel()
            self._stream.cancel()

    def _forward_polled(self, spoken: str) -> None:
        if not self.input_ended:
            self._forward(spoken)

    def _ids(self) -> dict:
        return {"response_id": self.id, "item_id": self.item.id, "output_index": 0}

    def _as_json(self, status: str, **extra) -> dict:
        return {
            "id": self.id,
            "object": "realtime.response",
            "status": status,
            "output_modalities": ["audio"],
            "conversation_id": None,
            "audio": {"output": self._connection.session["audio"]["output"]},
            **extra,
        }

    async def announce(self) -> None:
        event = self._connection.send_event
        await event("response.created", response=self._as_json("in_progress", output=[]))
        item = self.item.as_json("in_progress")
        await event("response.output_item.added", response_id=self.id, output_index=0, item=item)
        await event(
            "conversation.item.added", previous_item_id=self._connection.last_item_id, item=item
        )
        await event(
            "response.content_part.added",
            **self._ids(),
            content_index=0,
            part={"type": "audio", "transcript": ""},
        )

    async def run(self) -> None:
        event = self._connection.send_event
        status, details, outcome = "failed", None, "error"
        try:
            events = self.text.with_polling(aiter(self._stream.events()), self._forward_polled)
            async with contextlib.aclosing(events):
                async for engine_event in events:
                    for out in self.output.process(engine_event):
                        if isinstance(out, WordsOut):
                            for word in out.words:
                                delta = self.text.raw_text[len(self.item.transcript) : word.raw_end]
                                self.item.transcript += delta
                                await event(
                                    "response.output_audio_transcript.delta",
                                    **self._ids(),
                                    content_index=0,
                                    delta=delta,
                                )
                        elif isinstance(out, AudioOut):
                            self.item.audio_ms = self.text.audio_seconds * 1000.0
                            await event(
                                "response.output_audio.delta",
                                **self._ids(),
                                content_index=0,
                                delta=base64.b64encode(out.data).decode(),
                            )
                        elif isinstance(out, Error):
                            details = {
                                "type": "failed",
                                "error": {"type": "server_error", "code": out.code, "message": out.message},
                            }
                        elif isinstance(out, Finished) and details is None:
                            status = "cancelled" if out.cancelled else "completed"
                            outcome = "cancelled" if out.cancelled else "done"
                            details = {"type": status}
                            if out.cancelled:
                                details["reason"] = "client_cancelled"
        except Exception:
            log.exception("realtime response %s failed", self.id)
            self._stream.cancel()
            details = {
                "type": "failed",
                "error": {"type": "server_error", "code": ErrorCode.ENGINE_ERROR},
            }
        finally:
            self._state.slots.release()
            self.usage.finish(outcome, self.output.usage)
        try:
            await self._finish(status, details)
        finally:
            self._connection.response = None

    async def _finish(self, status: str, details: dict | None) -> None:
        connection = self._connection
        event = connection.send_event
        ids = self._ids()
        transcript = self.item.transcript
        await event("response.output_audio.done", **ids, content_index=0)
        await event(
            "response.output_audio_transcript.done", **ids, content_index=0, transcript=transcript
        )
        await event(
            "response.content_part.done",
            **ids,
            content_index=0,
            part={"type": "audio", "transcript": transcript},
        )
        item = self.item.as_json("completed" if status == "completed" else "incomplete")
        await event("response.output_item.done", response_id=self.id, output_index=0, item=item)
        await event(
            "conversation.item.done", previous_item_id=connection.last_item_id, item=item
        )
        connection.last_item_id = self.item.id
        connection.items[self.item.id] = self.item
        while len(connection.items) > KEPT_ITEMS:
            connection.items.popitem(last=False)
        usage = self.output.usage
        audio_tokens = round(usage.audio_seconds * OUTPUT_TOKENS_PER_SECOND + 0.4999)
        characters = usage.characters_received
        connection.established |= await event(
            "response.done",
            response=self._as_json(
                status,
                status_details=details,
                output=[item],
                usage={
                    "total_tokens": characters + audio_tokens,
                    "input_tokens": characters,
                    "output_tokens": audio_tokens,
                    "input_token_details": {"text_tokens": characters, "audio_tokens": 0},
                    "output_token_details": {"text_tokens": 0, "audio_tokens": audio_tokens},
                },
            ),
        )
