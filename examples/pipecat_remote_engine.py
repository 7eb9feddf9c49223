"""The Pipecat pipeline of `pipecat_to_wav.py` (imported from it), speaking through a co-located
engine server.

One server per GPU holds the model; every bot process on the host reaches it over a local
WebSocket with `RemoteEngine`, and the adapter cannot tell it from an in-process engine.

    voice-tts serve --port 8000 &          # the embedded voice; --model DIR for Qwen3-TTS
    python examples/pipecat_remote_engine.py [out.wav] [ws://127.0.0.1:8000/v1/ws]

`Qwen3StreamingTTS()` with no engine does the same when `VOICE_TTS_URL` is set.
"""

import asyncio
import sys

from pipecat_to_wav import speak_to_wav

from voice_tts.client import RemoteEngine


async def main(wav_path: str, url: str) -> None:
    seconds = await speak_to_wav(RemoteEngine(url), wav_path)
    print(f"{seconds:.2f} s of speech from {url} in {wav_path}")


if __name__ == "__main__":
    args = sys.argv[1:]
    asyncio.run(
        main(
            args[0] if args else "out.wav",
            args[1] if len(args) > 1 else "ws://127.0.0.1:8000/v1/ws",
        )
    )
