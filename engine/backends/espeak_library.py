"""libespeak-ng through ctypes: synchronous synthesis with audio and word events.

The shared library and its data come from the `espeakng-loader` wheel, so nothing is installed
system-wide and nothing is downloaded. libespeak-ng keeps all of its state in globals: one
`EspeakLibrary` per process, used from one thread only (the synthesis scheduler's).
"""

from __future__ import annotations

import ctypes
import logging
import re
import struct
from dataclasses import dataclass
from typing import Callable

import espeakng_loader

log = logging.getLogger(__name__)

# speak_lib.h
AUDIO_OUTPUT_SYNCHRONOUS = 2
ESPEAK_INITIALIZE_DONT_EXIT = 0x8000
POS_CHARACTER = 1
ESPEAK_CHARS_UTF8 = 1
ESPEAK_ENDPAUSE = 0x1000
EVENT_LIST_TERMINATED = 0
EVENT_WORD = 1
EE_OK = 0


class _EventId(ctypes.Union):
    _fields_ = [("number", ctypes.c_int), ("name", ctypes.c_char_p), ("string", ctypes.c_char * 8)]


class _Event(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("unique_identifier", ctypes.c_uint),
        ("text_position", ctypes.c_int),
        ("length", ctypes.c_int),
        ("audio_position", ctypes.c_int),
        ("sample", ctypes.c_int),
        ("user_data", ctypes.c_void_p),
        ("id", _EventId),
    ]


_SynthCallback = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(_Event)
)


@dataclass(frozen=True)
class WordEvent:
    """A word starts at `sample` (counted from the start of this synthesis call).

    `start` and `length` are in characters of the synthesized text, 0-based: eSpeak reports
    1-based code-point positions of its input (checked with accented, CJK and astral text).
    """

    start: int
    length: int
    sample: int


# (pcm of this buffer, the word events that fall inside it) -> keep going?
ChunkHandler = Callable[[bytes, list[WordEvent]], bool]

# Control characters would end the C string (NUL) or confuse the reader; lone surrogates cannot
# be encoded. Each becomes one space, so eSpeak's character positions still index the text.
_UNSPEAKABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")

# Wavegen state that eSpeak never resets between calls (pitch-flutter phase, automatic gain,
# voice-cycle counter). Restoring it before each call makes every call's audio depend only on
# its own text and voice, whatever was synthesized before — for any stream.
_CARRIED_STATE = ("Flutter_ix", "agc", "cycle_count")


def sanitize(text: str) -> str:
    """`text` with characters eSpeak cannot take replaced one-for-one by spaces."""
    return _UNSPEAKABLE.sub(" ", text)


class EspeakLibrary:
    """One initialized libespeak-ng. Not thread-safe: call it from a single thread."""

    def __init__(self, buffer_ms: int = 100) -> None:
        self._lib = ctypes.CDLL(espeakng_loader.get_library_path())
        self._declare()
        data_path = espeakng_loader.get_data_path().encode()
        rate = self._lib.espeak_Initialize(
            AUDIO_OUTPUT_SYNCHRONOUS, buffer_ms, data_path, ESPEAK_INITIALIZE_DONT_EXIT
        )
        if rate <= 0:
            raise RuntimeError(f"libespeak-ng failed to initialize with data at {data_path.decode()}")
        self.sample_rate: int = rate
        self.version: str = self._lib.espeak_Info(None).decode()
        self._handler: ChunkHandler | None = None
        self._handler_error: BaseException | None = None
        self._stopped = False
        self._callback = _SynthCallback(self._on_synth)  # kept referenced: C holds the pointer
        self._lib.espeak_SetSynthCallback(self._callback)
        self._carried_state = _find_carried_state(self._lib)
        self._initial_state = [v.value for v in self._carried_state]
        self._can_seed = hasattr(self._lib, "espeak_ng_SetRandSeed")
        if not self._carried_state:
            log.warning("libespeak-ng symbols not found: synthesis is not reproducible bit for bit")

    def _declare(self) -> None:
        lib = self._lib
        lib.espeak_Initialize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
        lib.espeak_Initialize.restype = ctypes.c_int
        lib.espeak_SetSynthCallback.argtypes = [_SynthCallback]
        lib.espeak_SetSynthCallback.restype = None
        lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
        lib.espeak_SetVoiceByName.restype = ctypes.c_int
        lib.espeak_Synth.argtypes = [
            ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint, ctypes.c_int,
            ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p,
        ]  # fmt: skip
        lib.espeak_Synth.restype = ctypes.c_int
        lib.espeak_Info.argtypes = [ctypes.c_void_p]
        lib.espeak_Info.restype = ctypes.c_char_p
        if hasattr(lib, "espeak_ng_SetRandSeed"):
            lib.espeak_ng_SetRandSeed.argtypes = [ctypes.c_long]
            lib.espeak_ng_SetRandSeed.restype = ctypes.c_int

    @property
    def reproducible(self) -> bool:
        """Each `synthesize` call's output depends only on its text and voice (the state eSpeak
        carries from one call to the next is restored before each)."""
        return bool(self._carried_state)

    def set_voice(self, name: str) -> None:
        """Select a voice by eSpeak name (`gmw/en-US`, `sit/cmn+f3`); raises if unknown.

        Selecting a voice also clears the wave generator's echo buffer, so it is done before
        every call even when the voice is unchanged."""
        status = self._lib.espeak_SetVoiceByName(name.encode())
        if status != EE_OK:
            raise ValueError(f"eSpeak NG has no voice {name!r} (status {status})")

    def synthesize(self, text: str, voice: str, on_chunk: ChunkHandler) -> bool:
        """Speak `text`; `on_chunk` gets each audio buffer as it is produced, with the word
        events inside it (before that buffer's audio). `on_chunk` returning False stops
        synthesis within that buffer. Returns False if stopped that way."""
        self.set_voice(voice)
        self._restore_carried_state()
        data = sanitize(text).encode("utf-8") + b"\0"
        self._handler, self._handler_error = on_chunk, None
        self._stopped = False
        try:
            status = self._lib.espeak_Synth(
                data, len(data), 0, POS_CHARACTER, 0, ESPEAK_CHARS_UTF8 | ESPEAK_ENDPAUSE, None, None
            )
        finally:
            self._handler = None
        if self._handler_error is not None:
            raise self._handler_error
        if status != EE_OK:
            raise RuntimeError(f"espeak_Synth failed with status {status}")
        return not self._stopped

    def _restore_carried_state(self) -> None:
        for variable, value in zip(self._carried_state, self._initial_state):
            variable.value = value
        if self._can_seed:
            self._lib.espeak_ng_SetRandSeed(1)

    def _on_synth(self, wav, num_samples: int, events) -> int:
        # Runs inside espeak_Synth; an exception must not unwind through C, so it is kept
        # and re-raised by `synthesize`.
        try:
            words = []
            i = 0
            while events[i].type != EVENT_LIST_TERMINATED:
                event = events[i]
                if event.type == EVENT_WORD:
                    words.append(WordEvent(event.text_position - 1, event.length, event.sample))
                i += 1
            pcm = ctypes.string_at(wav, num_samples * 2) if wav and num_samples > 0 else b""
            if not pcm and not words:
                return 0
            if self._handler(pcm, words):
                return 0
            self._stopped = True
            return 1
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller
            self._handler_error = exc
            self._stopped = True
            return 1


def _find_carried_state(lib: ctypes.CDLL) -> list[ctypes.c_int]:
    """The `_CARRIED_STATE` variables of the loaded library, located through its symbol table.

    They are function-local statics, so only the ELF `.symtab` (present in the wheel's
    unstripped build) names them. Empty when the build or platform does not allow it.
    """
    try:
        symbols = _elf_symbols(espeakng_loader.get_library_path())
        base = ctypes.cast(lib.espeak_Synth, ctypes.c_void_p).value - symbols["espeak_Synth"]
        found = []
        for wanted in _CARRIED_STATE:
            # GCC names a function-local static `name.1234`, clang `function.name`.
            names = [n for n in symbols if n.split(".")[0] == wanted or n.endswith("." + wanted)]
            if len(names) != 1:
                return []
            found.append(ctypes.c_int.from_address(base + symbols[names[0]]))
        return found
    except (OSError, KeyError, ValueError, struct.error):
        return []


def _elf_symbols(path: str) -> dict[str, int]:
    """Name -> value of the `.symtab` entries of a 64-bit little-endian ELF file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [
        struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)
    ]
    symbols: dict[str, int] = {}
    for _name, kind, _flags, _addr, offset, size, link, _info, _align, entsize in sections:
        if kind != 2 or entsize != 24:  # SHT_SYMTAB
            continue
        strtab_offset = sections[link][4]
        for pos in range(offset, offset + size, entsize):
            name_offset, _, _, _, value, _ = struct.unpack_from("<IBBHQQ", data, pos)
            if not name_offset or not value:
                continue
            end = data.index(b"\0", strtab_offset + name_offset)
            symbols[data[strtab_offset + name_offset : end].decode("ascii", "replace")] = value
    return symbols
