"""Expressive markup on the Qwen3 engine (tiny CustomVoice checkpoint, CPU, float32), through
`TTSSession`: a sentence under an expression gives exactly the official generation of that
sentence with that instruction (the golden codes of the fixture's instruct case), its audio
follows the sentence before without a gap, and a turn with markup on but no tags is
bit-identical to the same turn without markup (its codes; decoded audio may round differently
where the codec was handed a different run of frames, so audio is compared by its frames)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.model.sampling import SamplingParams
from engine.runtime.output import ChunkPolicy
from engine.runtime.qwen3_engine import Qwen3Engine
from voice_tts.protocol import AudioChunk
from voice_tts.session import SessionDone, TTSSession, WordsEvent

GREEDY = SamplingParams.greedy()
SAMPLES_PER_FRAME = 1920
INSTRUCT_CASE = "A06_zh_dylan_chinese_instruct_stream_dialect"
PLAIN_CASE = "A02_en_ryan_english_stream"


class StreamsOpened:
    """The engine, keeping every stream opened on it (a tagged turn opens one per segment)."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self.streams: list = []

    def open_stream(self, request=None, /, **settings):
        stream = self.engine.open_stream(request, **settings)
        self.streams.append(stream)
        return stream

    def __getattr__(self, name):
        return getattr(self.engine, name)


@pytest.fixture(scope="module")
def engine(tiny_checkpoint: Path):
    eng = Qwen3Engine.from_pretrained(
        tiny_checkpoint, device="cpu", max_streams=4, keep_codes=True, chunks=ChunkPolicy(first_chunk_frames_loaded=1)
    )
    yield eng
    eng.close()


async def speak(engine, text: str, deltas: int = 1, **settings) -> tuple[bytes, list[str], SessionDone]:
    session = TTSSession(engine, normalize=False, sampling=GREEDY, **settings)
    for start in range(0, len(text), deltas):
        session.push_text(text[start : start + deltas])
    session.end_input()
    pcm, words, done = bytearray(), [], None
    async for event in session.events():
        if isinstance(event, AudioChunk):
            pcm += event.pcm
        elif isinstance(event, WordsEvent):
            words += [w.text for w in event.words]
        elif isinstance(event, SessionDone):
            done = event
    return bytes(pcm), words, done


async def test_a_sentence_under_an_expression_is_the_official_generation_with_that_instruction(engine, golden_cases):
    case = golden_cases[INSTRUCT_CASE]["args"]
    assert "instruct" in engine.features
    first = "你好。"
    tagged = f'{first}<expr type="expression" label="{case["instruct"]}"/>{case["text"]}'
    recorder = StreamsOpened(engine)
    pcm, _, done = await speak(
        recorder, tagged, voice=case["speaker"], language=case["language"],
        max_new_tokens=case["max_new_tokens"], markup="expr",
    )
    assert done.heard_text == first + case["text"]
    [before, under] = recorder.streams
    assert under.codes == golden_cases[INSTRUCT_CASE]["codes"]
    # The sentence before is what it would be alone (no instruction), and the turn's audio is
    # the two segments' audio back to back: one continuous timeline.
    alone = StreamsOpened(engine)
    await speak(alone, first, voice=case["speaker"], language=case["language"], max_new_tokens=case["max_new_tokens"])
    assert before.codes == alone.streams[0].codes
    assert len(pcm) == 2 * SAMPLES_PER_FRAME * (len(before.codes) + len(under.codes))
    assert done.usage.audio_seconds == pytest.approx(len(pcm) / 2 / 24000)


async def test_markup_without_tags_is_bit_identical(engine, golden_cases):
    case = golden_cases[PLAIN_CASE]["args"]
    settings = dict(voice=case["speaker"], language=case["language"], max_new_tokens=case["max_new_tokens"])
    with_markup = StreamsOpened(engine)
    pcm, words, done = await speak(with_markup, case["text"], deltas=3, markup="expr", **settings)
    without = StreamsOpened(engine)
    plain_pcm, plain_words, plain_done = await speak(without, case["text"], deltas=3, **settings)
    assert with_markup.streams[0].codes == without.streams[0].codes == golden_cases[PLAIN_CASE]["codes"]
    assert len(with_markup.streams) == 1 and len(pcm) == len(plain_pcm)
    assert words == plain_words and done.usage == plain_done.usage


async def test_a_break_between_sentences_is_exact_silence(engine, golden_cases):
    case = golden_cases[PLAIN_CASE]["args"]
    settings = dict(voice=case["speaker"], language=case["language"], max_new_tokens=case["max_new_tokens"])
    sentences = case["text"].split(". ", 1)
    tagged = f'{sentences[0]}. <expr type="break" label="400ms"/>{sentences[1]}'
    recorder = StreamsOpened(engine)
    pcm, words, _ = await speak(recorder, tagged, markup="expr", **settings)
    alone = StreamsOpened(engine)
    await speak(alone, sentences[0] + ". ", **settings)
    await speak(alone, sentences[1], **settings)
    assert [s.codes for s in recorder.streams] == [s.codes for s in alone.streams]
    before = 2 * SAMPLES_PER_FRAME * len(alone.streams[0].codes)
    silence = 2 * round(0.4 * 24000)
    assert len(pcm) == before + silence + 2 * SAMPLES_PER_FRAME * len(alone.streams[1].codes)
    assert not np.frombuffer(pcm[before : before + silence], np.int16).any()
    assert words == case["text"].split()
