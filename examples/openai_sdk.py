"""Speak through a voice-tts server with nothing but the official `openai` package.

    voice-tts serve --port 8000          # in another terminal
    python examples/openai_sdk.py http://127.0.0.1:8000/v1 out_speech.pcm out_realtime.pcm

1. `/v1/audio/speech` with `stream_format="sse"`: `speech.audio.delta` events carry base64
   audio as it is made, `speech.audio.done` carries the usage.
2. `/v1/realtime`: a Realtime session: text in as a conversation item, audio and its
   transcript out as the words start; then an LLM's tokens streamed in one by one through the
   server's `voice_tts.input_text_buffer.*` extension events.

Both files are 24 kHz mono 16-bit PCM (`ffplay -f s16le -ar 24000 -ac 1 out_speech.pcm`).
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys

from openai import AsyncOpenAI, OpenAI

TEXT = "Hello! This server speaks OpenAI's protocols, so only the base URL changed."
TOKENS = ["Tokens", " stream", " in", " as", " the", " model", " writes", " them", "."]


def speech_sse(base_url: str, api_key: str) -> bytes:
    client = OpenAI(base_url=base_url, api_key=api_key)
    audio = bytearray()
    with client.audio.speech.with_streaming_response.create(
        model="tts-1", voice="alloy", input=TEXT, response_format="pcm", stream_format="sse"
    ) as response:
        for line in response.iter_lines():
            if not line.startswith("data: "):
                continue
            event = json.loads(line[len("data: ") :])
            if event["type"] == "speech.audio.delta":
                audio += base64.b64decode(event["audio"])
            elif event["type"] == "speech.audio.done":
                print("speech usage:", event["usage"])
    return bytes(audio)


async def realtime(base_url: str, api_key: str) -> bytes:
    client = AsyncOpenAI(base_url=base_url, api_key=api_key)
    audio = bytearray()
    async with client.realtime.connect(model="voice-tts") as connection:
        await connection.session.update(
            session={
                "type": "realtime",
                "audio": {
                    "output": {"voice": "alloy", "format": {"type": "audio/pcm", "rate": 24000}}
                },
            }
        )
        # Whole text: a conversation item, then a response.
        await connection.conversation.item.create(
            item={
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": TEXT}],
            }
        )
        await connection.response.create()
        audio += await speak_response(connection)
        # Token by token, as an LLM writes (a vendor extension: OpenAI's API has no text buffer).
        for token in TOKENS:
            await connection.send({"type": "voice_tts.input_text_buffer.append", "delta": token})
        await connection.send({"type": "voice_tts.input_text_buffer.commit"})
        audio += await speak_response(connection)
    return bytes(audio)


async def speak_response(connection) -> bytes:
    audio = bytearray()
    async for event in connection:
        if event.type == "response.output_audio.delta":
            audio += base64.b64decode(event.delta)
        elif event.type == "response.output_audio_transcript.delta":
            print(event.delta, end="", flush=True)
        elif event.type == "error":
            raise RuntimeError(event.error.message)
        elif event.type == "response.done":
            response = event.response
            tokens = response.usage.output_tokens
            print(f"\nrealtime response {response.status}: {tokens} audio tokens")
            return bytes(audio)
    raise RuntimeError("the connection closed before response.done")


def main() -> None:
    base_url = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000/v1"
    speech_out = sys.argv[2] if len(sys.argv) > 2 else "out_speech.pcm"
    realtime_out = sys.argv[3] if len(sys.argv) > 3 else "out_realtime.pcm"
    api_key = "none"  # a server started with --api-key wants that key here
    speech = speech_sse(base_url, api_key)
    with open(speech_out, "wb") as file:
        file.write(speech)
    print(f"speech: {len(speech) / 48000:.2f} s of audio -> {speech_out}")
    spoken = asyncio.run(realtime(base_url, api_key))
    with open(realtime_out, "wb") as file:
        file.write(spoken)
    print(f"realtime: {len(spoken) / 48000:.2f} s of audio -> {realtime_out}")


if __name__ == "__main__":
    main()
