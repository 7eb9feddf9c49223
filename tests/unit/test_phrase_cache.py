"""The phrase cache's bounds and keys: bytes, least recently used first out; a deleted cloned
voice's phrases dropped; a phrase keyed by its voice's creation time; only whole turns kept.
Streams are the embedded voice's."""

from __future__ import annotations

import pytest

from engine import Engine
from engine.server.phrase_cache import EVENT_OVERHEAD_BYTES, PhraseCache, phrase_key
from voice_tts.protocol import AudioChunk, Done
from voice_tts.request import StreamRequest


@pytest.fixture(scope="module")
def engine():
    return Engine.embedded()


async def finish(stream, text: str) -> list:
    stream.push_text(text)
    stream.end_input()
    return [event async for event in stream.events()]


def size_of(events) -> int:
    return sum(EVENT_OVERHEAD_BYTES + (len(e.pcm) if isinstance(e, AudioChunk) else 0) for e in events)


async def test_a_replayed_phrase_gives_the_same_events(engine):
    cache, request = PhraseCache(10**7), StreamRequest()
    key = phrase_key("Hello there.", request, None)
    original = await finish(cache.recording(key, engine.open_stream(request)), "Hello there.")
    assert await finish(cache.replay(key), "ignored") == original
    # Priority does not change a turn's audio: the same phrase.
    assert cache.replay(phrase_key("Hello there.", StreamRequest(priority=-1), None)) is not None
    assert cache.replay(phrase_key("Hello there.", StreamRequest(speed=1.5), None)) is None


def test_a_phrase_is_keyed_by_its_dictionarys_rules():
    def key(rules):
        return phrase_key("SQL.", StreamRequest(normalize=True, lexicon=rules), None)

    sequel = [{"match": "SQL", "say": "sequel"}]
    assert key(sequel) == key([dict(rule) for rule in sequel])
    assert key(sequel) != key([{"match": "SQL", "say": "S Q L"}])


async def test_bounded_in_bytes_least_recently_used_first_out(engine):
    request = StreamRequest()
    texts = ["One two three.", "Four five six.", "Seven eight nine."]
    sizes = []
    probe = PhraseCache(10**7)
    for text in texts:
        sizes.append(size_of(await finish(probe.recording(phrase_key(text, request, None), engine.open_stream(request)), text)))
    cache = PhraseCache(sizes[0] + sizes[1] + sizes[2] - 1)  # two of the three fit
    keys = [phrase_key(text, request, None) for text in texts]
    for key, text in zip(keys[:2], texts[:2]):
        await finish(cache.recording(key, engine.open_stream(request)), text)
    assert cache.replay(keys[0]) is not None  # used: the second is now the least recent
    await finish(cache.recording(keys[2], engine.open_stream(request)), texts[2])
    assert cache.replay(keys[1]) is None
    assert cache.replay(keys[0]) is not None and cache.replay(keys[2]) is not None
    assert cache.size == sizes[0] + sizes[2] <= cache.max_bytes
    # A phrase larger than the whole cache is never kept, and evicts nothing.
    small = PhraseCache(sizes[0] - 1)
    await finish(small.recording(keys[0], engine.open_stream(request)), texts[0])
    assert len(small) == 0 and small.size == 0


async def test_a_deleted_voice_drops_its_phrases_and_a_new_voice_of_its_name_misses(engine):
    cache = PhraseCache(10**7)
    calm, other = StreamRequest(voice="calm"), StreamRequest(voice="male")
    kept = phrase_key("Hello.", calm, 1_700_000_000)
    # (the embedded voice stands in for a cloned one: what is kept is its events)
    await finish(cache.recording(kept, engine.open_stream(StreamRequest())), "Hello.")
    await finish(cache.recording(phrase_key("Hello.", other, None), engine.open_stream(other)), "Hello.")
    assert cache.replay(phrase_key("Hello.", calm, 1_700_000_999)) is None  # made again, later
    cache.keep_voices({("calm", 1_700_000_000)})  # still there: kept
    assert cache.replay(kept) is not None
    cache.keep_voices(set())  # deleted
    assert cache.replay(kept) is None and len(cache) == 1
    assert cache.replay(phrase_key("Hello.", other, None)) is not None


async def test_a_cancelled_or_failed_turn_is_not_kept(engine):
    cache, request = PhraseCache(10**7), StreamRequest()
    key = phrase_key("A turn cut short by its listener.", request, None)
    stream = cache.recording(key, engine.open_stream(request))
    stream.push_text("A turn cut short by its listener.")
    stream.cancel()
    events = [event async for event in stream.events()]
    assert isinstance(events[-1], Done) and events[-1].cancelled and len(cache) == 0
    bad = StreamRequest(voice="nobody")
    await finish(cache.recording(phrase_key("Hi.", bad, None), engine.open_stream(bad)), "Hi.")
    assert len(cache) == 0
