"""Clone a voice from a short recording once, then speak LLM-style token deltas with it.

    python examples/clone_voice.py BASE_CHECKPOINT reference.wav "transcript of it" [out.wav] [--voices-dir DIR]

A Qwen3-TTS Base checkpoint (e.g. Qwen3-TTS-12Hz-1.7B-Base) turns 1-30 s of reference audio
into a voice: with its transcript an in-context (ICL) voice, closest to the reference; pass ""
for an x-vector voice, which starts speaking after the first token. The voice is saved in the
voices directory (default: voice-tts/voices in your data directory) and comes back on every
start: run this twice with the same name and the second run reuses it.
"""

import argparse
import asyncio

import soundfile as sf

from engine import Engine
from voice_tts.audio import write_wav
from voice_tts.protocol import AudioChunk, Error
from voice_tts.session import TTSSession

REPLY = "Thanks for calling. Your order shipped this morning and should arrive on Friday."


async def main(args: argparse.Namespace) -> None:
    options = {"voices_dir": args.voices_dir} if args.voices_dir else {}
    engine = Engine.from_pretrained(args.checkpoint, **options)
    try:
        if args.name not in engine.voice_store:
            audio, sample_rate = sf.read(args.reference, dtype="float32")
            made = engine.create_voice(args.name, audio, sample_rate, args.transcript or None)
            print(f"made voice {made['id']} ({made['mode']})")
        session = TTSSession(engine, voice=args.name, language="english")
        for token in REPLY.split(" "):  # an LLM's deltas, each word with its space
            session.push_text(token + " ")
        session.end_input()
        pcm = bytearray()
        async for event in session.events():
            if isinstance(event, AudioChunk):
                pcm += event.pcm
            elif isinstance(event, Error):
                raise SystemExit(f"error: {event.code}: {event.message}")
        write_wav(args.output, bytes(pcm), 24000)
        print(f"wrote {args.output}: {len(pcm) / 2 / 24000:.2f} s in voice {args.name}")
    finally:
        await engine.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint")
    parser.add_argument("reference")
    parser.add_argument("transcript")
    parser.add_argument("output", nargs="?", default="cloned.wav")
    parser.add_argument("--name", default="me")
    parser.add_argument("--voices-dir")
    asyncio.run(main(parser.parse_args()))
