"""The LiveKit TTS plugin on its own, without a room or an AgentSession.

LLM-like tokens go in one at a time; audio frames come out while the sentence is still being
written, each carrying the words whose audio starts in it (`TimedString`s with their start
time). The pieces join back to exactly the text that was sent.

    python examples/livekit_plugin_alone.py [out.wav]

Speaks with the server at VOICE_TTS_URL if set, else with the embedded voice in-process.
"""

import asyncio
import sys

from livekit.agents.types import USERDATA_TIMED_TRANSCRIPT

from livekit import rtc
from livekit.plugins import qwen3_tts

TOKENS = [
    "The",
    " meeting",
    " moved",
    " to",
    " 3:30",
    " pm",
    " on",
    " May",
    " 4th",
    ".",
    " See",
    " you",
    " there",
    "!",
]


async def speak() -> rtc.AudioFrame:
    tts = qwen3_tts.TTS()
    frames: list[rtc.AudioFrame] = []
    pieces: list[str] = []

    async with tts.stream() as stream:

        async def type_like_an_llm() -> None:
            for token in TOKENS:
                stream.push_text(token)
                await asyncio.sleep(0.05)
            stream.end_input()

        typing = asyncio.create_task(type_like_an_llm())
        async for audio in stream:
            frames.append(audio.frame)
            for piece in audio.frame.userdata.get(USERDATA_TIMED_TRANSCRIPT, []):
                pieces.append(piece)
                print(f"{piece.start_time:6.2f} s  {piece!r}")
        await typing

    await tts.aclose()
    print("transcript:", "".join(pieces))
    return rtc.combine_audio_frames(frames)


if __name__ == "__main__":
    wav_path = sys.argv[1] if len(sys.argv) > 1 else "livekit_plugin_alone.wav"
    speech = asyncio.run(speak())
    with open(wav_path, "wb") as f:
        f.write(speech.to_wav_bytes())
    print(f"{speech.duration:.2f} s of {speech.sample_rate} Hz audio -> {wav_path}")
