"""The phrase cache's bounds and keys: bytes, least recently used first out; a deleted cloned
voice's phrases dropped; a phrase keyed by its voice's creation time; only whole turns kept;
a stream whose text may still be a phrase opens its engine stream only once it is none.
Streams are the embedded voice's."""

from __future__ import annotations

import asyncio

import pytest

from engine import Engine
from engine.server.phrase_cache import EVENT_OVERHEAD_BYTES, MAX_HELD_CHARS, PhraseCache, PhraseKey, voicing
from voice_tts.protocol import AudioChunk, Done, Error
from voice_tts.request import StreamRequest


class CountingEngine:
    """The embedded voice, counting the streams opened on it."""

    def __init__(self) -> None:
        self.engine = Engine.embedded()
        self.opened = 0
        self.opening = asyncio.Event()  # set by each stream opened

    def open_stream(self, request: StreamRequest):
        self.opened += 1
        self.opening.set()
        return self.engine.open_stream(request)


@pytest.fixture(scope="module")
def engine():
    return CountingEngine()


def cached_stream(cache: PhraseCache, engine, request: StreamRequest, made_at: int | None = None, replays=None):
    """A stream of `request` that `cache` may answer (`replays`: a list told of each replay)."""
    return cache.stream(
        voicing(request, made_at), lambda: engine.open_stream(request), lambda: replays.append(True) if replays is not None else None
    )


async def finish(stream, *texts: str) -> list:
    for text in texts:
        stream.push_text(text)
    stream.end_input()
    return [event async for event in stream.events()]


def size_of(events) -> int:
    return sum(EVENT_OVERHEAD_BYTES + (len(e.pcm) if isinstance(e, AudioChunk) else 0) for e in events)


def key(text: str, request: StreamRequest, made_at: int | None = None) -> PhraseKey:
    return PhraseKey(voicing(request, made_at), text)


async def test_a_replayed_phrase_gives_the_same_events_without_the_engine(engine):
    cache, request, replays = PhraseCache(10**7), StreamRequest(), []
    original = await finish(cached_stream(cache, engine, request), "Hello there.")
    opened = engine.opened
    # Pushed in other pieces: the same spoken text, the same phrase.
    assert await finish(cached_stream(cache, engine, request, replays=replays), "Hello ", "there.") == original
    assert engine.opened == opened and replays == [True]
    # Priority does not change a turn's audio: the same phrase.
    assert cache.replay(key("Hello there.", StreamRequest(priority=-1))) is not None
    assert cache.replay(key("Hello there.", StreamRequest(speed=1.5))) is None


def test_a_phrase_is_keyed_by_its_dictionarys_rules():
    def sql(rules):
        return key("SQL.", StreamRequest(normalize=True, lexicon=rules))

    sequel = [{"match": "SQL", "say": "sequel"}]
    assert sql(sequel) == sql([dict(rule) for rule in sequel])
    assert sql(sequel) != sql([{"match": "SQL", "say": "S Q L"}])


async def test_text_that_begins_no_phrase_opens_the_engine_with_everything_held(engine):
    cache, request, replays = PhraseCache(10**7), StreamRequest(), []
    alone = await finish(engine.engine.open_stream(request), "Hello there, how are you?")
    await finish(cached_stream(cache, engine, request), "Hello there.")
    opened = engine.opened
    stream = cached_stream(cache, engine, request, replays=replays)
    stream.push_text("Hello ")
    stream.push_text("there")
    assert engine.opened == opened  # still some phrase's beginning: held
    stream.push_text(", how are you?")
    assert engine.opened == opened + 1  # no phrase's: the engine has it all
    assert await finish(stream) == alone and not replays
    # A phrase's beginning that ends there is not the phrase: the engine speaks it.
    await finish(cached_stream(cache, engine, request, replays=replays), "Hello")
    assert engine.opened == opened + 2 and not replays
    # A voicing without phrases opens the engine at once, as without a cache.
    cached_stream(cache, engine, StreamRequest(voice="female"))
    assert engine.opened == opened + 3


async def test_held_text_that_waits_or_grows_long_opens_the_engine(engine):
    cache, request = PhraseCache(10**7), StreamRequest()
    await finish(cached_stream(cache, engine, request), "Hello there.")
    # No more text for a while (an LLM calling a tool mid-reply): the engine speaks what came.
    engine.opening.clear()
    stream = cached_stream(cache, engine, request)
    stream.push_text("Hello")
    await asyncio.wait_for(engine.opening.wait(), 10)
    events = await finish(stream)
    assert any(isinstance(e, AudioChunk) and e.pcm for e in events) and not events[-1].cancelled
    # A phrase longer than a turn's text is normalized ahead of its engine is never held whole.
    long = "One more sentence for a long phrase. " * (MAX_HELD_CHARS // 30)
    await finish(cached_stream(cache, engine, request), long)
    opened = engine.opened
    stream = cached_stream(cache, engine, request)
    stream.push_text(long[: MAX_HELD_CHARS - 1])
    assert engine.opened == opened
    stream.push_text(long[MAX_HELD_CHARS - 1 :])
    assert engine.opened == opened + 1
    stream.cancel()


async def test_a_held_stream_cancelled_or_refused_ends_as_an_engine_stream_would(engine):
    cache, request = PhraseCache(10**7), StreamRequest()
    await finish(cached_stream(cache, engine, request), "Hello there.")
    opened = engine.opened
    stream = cached_stream(cache, engine, request)
    stream.push_text("Hello")
    stream.cancel()
    assert [event async for event in stream.events()] == [Done(cancelled=True)]
    assert engine.opened == opened

    def refuse():
        raise ValueError("no such language")

    refused = cache.stream(voicing(request, None), refuse, lambda: None)
    events = await finish(refused, "Goodbye.")
    assert isinstance(events[0], Error) and events[0].code == "invalid_message" and not events[0].retryable
    assert events[-1] == Done() and len(cache) == 1


async def test_bounded_in_bytes_least_recently_used_first_out(engine):
    request = StreamRequest()
    texts = ["One two three.", "Four five six.", "Seven eight nine."]
    sizes = []
    probe = PhraseCache(10**7)
    for text in texts:
        sizes.append(size_of(await finish(cached_stream(probe, engine, request), text)))
    cache = PhraseCache(sizes[0] + sizes[1] + sizes[2] - 1)  # two of the three fit
    keys = [key(text, request) for text in texts]
    for text in texts[:2]:
        await finish(cached_stream(cache, engine, request), text)
    assert cache.replay(keys[0]) is not None  # used: the second is now the least recent
    await finish(cached_stream(cache, engine, request), texts[2])
    assert cache.replay(keys[1]) is None
    assert cache.replay(keys[0]) is not None and cache.replay(keys[2]) is not None
    assert cache.size == sizes[0] + sizes[2] <= cache.max_bytes
    # An evicted phrase's text no longer holds a stream back.
    assert not cache.begins_some(voicing(request, None), "Four")
    # A phrase larger than the whole cache is never kept, and evicts nothing.
    small = PhraseCache(sizes[0] - 1)
    await finish(cached_stream(small, engine, request), texts[0])
    assert len(small) == 0 and small.size == 0


async def test_a_deleted_voice_drops_its_phrases_and_a_new_voice_of_its_name_misses(engine):
    cache = PhraseCache(10**7)
    calm, other = StreamRequest(voice="calm"), StreamRequest(voice="male")
    kept = key("Hello.", calm, 1_700_000_000)
    # (the embedded voice stands in for a cloned one: what is kept is its events)
    await finish(cache.stream(kept.voicing, lambda: engine.open_stream(StreamRequest()), lambda: None), "Hello.")
    await finish(cached_stream(cache, engine, other), "Hello.")
    assert cache.replay(key("Hello.", calm, 1_700_000_999)) is None  # made again, later
    cache.keep_voices({("calm", 1_700_000_000)})  # still there: kept
    assert cache.replay(kept) is not None
    cache.keep_voices(set())  # deleted
    assert cache.replay(kept) is None and len(cache) == 1
    assert not cache.begins_some(kept.voicing, "")
    assert cache.replay(key("Hello.", other)) is not None


async def test_a_cancelled_or_failed_turn_is_not_kept(engine):
    cache, request = PhraseCache(10**7), StreamRequest()
    stream = cached_stream(cache, engine, request)
    stream.push_text("A turn cut short by its listener.")
    stream.cancel()
    events = [event async for event in stream.events()]
    assert isinstance(events[-1], Done) and events[-1].cancelled and len(cache) == 0
    await finish(cached_stream(cache, engine, StreamRequest(voice="nobody")), "Hi.")
    assert len(cache) == 0
