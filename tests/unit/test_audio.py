"""PCM resampling, G.711 (µ-law, A-law) and WAV helpers."""

from __future__ import annotations

import io
import wave

import numpy as np
import pytest

from g711_reference import G711_FORMATS, reference_decode, reference_encode

from voice_tts.audio import (
    PCMResampler,
    alaw_to_pcm16,
    decode_to_pcm16,
    encode_pcm16,
    mulaw_to_pcm16,
    pcm16_to_alaw,
    pcm16_to_mulaw,
    resample_pcm16,
    wav_bytes,
    write_wav,
)

def sine(freq: float, rate: int, seconds: float, amplitude: int = 12000) -> bytes:
    t = np.arange(int(rate * seconds)) / rate
    return (amplitude * np.sin(2 * np.pi * freq * t)).astype("<i2").tobytes()


def pcm_array(pcm: bytes) -> np.ndarray:
    return np.frombuffer(pcm, dtype="<i2").astype(np.int64)


def dominant_frequency(pcm: bytes, rate: int) -> float:
    x = pcm_array(pcm).astype(float)
    spectrum = np.abs(np.fft.rfft(x * np.hanning(len(x))))
    return float(np.argmax(spectrum) * rate / len(x))


ALL_INT16 = np.arange(-32768, 32768, dtype="<i2").tobytes()


@pytest.mark.parametrize("audio_format", G711_FORMATS)
def test_g711_matches_the_reference_codec_for_every_sample_and_code(audio_format):
    assert encode_pcm16(ALL_INT16, audio_format) == reference_encode(ALL_INT16, audio_format)
    codes = bytes(range(256))
    assert decode_to_pcm16(codes, audio_format) == reference_decode(codes, audio_format)
    # Through the reference decoder and back through ours: every code survives (A-law has no
    # second zero; µ-law's 0x7F decodes to the same 0 as 0xFF).
    back = encode_pcm16(reference_decode(codes, audio_format), audio_format)
    assert back == (codes if audio_format == "alaw" else codes.replace(b"\x7f", b"\xff"))


def test_alaw_known_codes():
    # Silence is 0xD5 (the even bits inverted), full scale 0xAA / 0x2A.
    assert pcm16_to_alaw(np.array([0, 32767, -32768], dtype="<i2").tobytes()) == bytes([0xD5, 0xAA, 0x2A])
    assert pcm_array(alaw_to_pcm16(bytes([0xD5, 0x55, 0xAA, 0x2A]))).tolist() == [8, -8, 32256, -32256]


def test_mulaw_known_codes():
    assert pcm16_to_mulaw(np.array([0, 32767, -32768], dtype="<i2").tobytes()) == bytes([0xFF, 0x80, 0x00])
    assert pcm_array(mulaw_to_pcm16(bytes([0xFF, 0x7F, 0x80, 0x00]))).tolist() == [0, 0, 32124, -32124]


def test_mulaw_round_trip_error_is_bounded_by_the_segment_step():
    x = pcm_array(ALL_INT16)
    y = pcm_array(mulaw_to_pcm16(pcm16_to_mulaw(ALL_INT16)))
    assert len(pcm16_to_mulaw(ALL_INT16)) == 65536
    # µ-law keeps about 4 bits of mantissa: the error is at most ~1/16 of the magnitude (+ the bias).
    unclipped = np.abs(x) <= 32124
    assert np.all(np.abs(x - y)[unclipped] <= np.abs(x)[unclipped] / 16 + 8)
    # Decoding then re-encoding is the identity on codes (0x7F and 0xFF both mean zero).
    codes = bytes(b for b in range(256) if b != 0x7F)
    assert pcm16_to_mulaw(mulaw_to_pcm16(codes)) == codes


def test_odd_byte_pcm_is_rejected():
    with pytest.raises(ValueError):
        pcm16_to_mulaw(b"\x00\x01\x02")
    with pytest.raises(ValueError):
        pcm16_to_alaw(b"\x00\x01\x02")
    with pytest.raises(ValueError):
        resample_pcm16(b"\x00", 8000, 16000)


@pytest.mark.parametrize("from_rate,to_rate", [(22050, 24000), (24000, 16000), (24000, 8000), (16000, 48000)])
def test_one_shot_resampling_keeps_duration_and_pitch(from_rate, to_rate):
    pcm = sine(440.0, from_rate, 1.0)
    out = resample_pcm16(pcm, from_rate, to_rate)
    assert abs(len(out) // 2 - to_rate) <= 1
    assert dominant_frequency(out, to_rate) == pytest.approx(440.0, abs=2.0)


def test_streaming_resampler_matches_one_shot_whatever_the_chunking():
    rate_in, rate_out = 22050, 24000
    pcm = sine(300.0, rate_in, 2.0) + sine(1200.0, rate_in, 1.0)
    reference = pcm_array(resample_pcm16(pcm, rate_in, rate_out))
    rng = np.random.default_rng(7)
    for _ in range(5):
        resampler = PCMResampler(rate_in, rate_out)
        cuts = np.sort(rng.integers(0, len(pcm), size=40))  # odd byte offsets included
        pieces = np.split(np.frombuffer(pcm, dtype=np.uint8), cuts)
        out = b"".join(resampler.process(p.tobytes()) for p in pieces) + resampler.flush()
        streamed = pcm_array(out)
        assert len(streamed) == len(reference)
        # No clicks at chunk boundaries: the stream equals the one-shot result to a couple of LSB.
        assert np.max(np.abs(streamed - reference)) <= 4


def test_resampler_with_equal_rates_passes_audio_through():
    resampler = PCMResampler(24000, 24000)
    pcm = sine(200.0, 24000, 0.1)
    assert resampler.process(pcm[:101]) + resampler.process(pcm[101:]) + resampler.flush() == pcm


def test_resampler_rejects_a_stream_that_ends_mid_sample_and_bad_rates():
    resampler = PCMResampler(22050, 24000)
    resampler.process(b"\x01\x02\x03")
    with pytest.raises(ValueError):
        resampler.flush()
    with pytest.raises(ValueError):
        PCMResampler(0, 24000)


def test_wav_bytes_round_trip(tmp_path):
    pcm = sine(500.0, 16000, 0.25)
    data = wav_bytes(pcm, 16000)
    with wave.open(io.BytesIO(data)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, 16000)
        assert wav.readframes(wav.getnframes()) == pcm
    path = tmp_path / "clip.wav"
    write_wav(path, pcm, 16000)
    assert path.read_bytes() == data


def test_stereo_wav_and_bad_frames():
    stereo = np.zeros((100, 2), dtype="<i2").tobytes()
    with wave.open(io.BytesIO(wav_bytes(stereo, 8000, channels=2))) as wav:
        assert wav.getnchannels() == 2 and wav.getnframes() == 100
    with pytest.raises(ValueError):
        wav_bytes(b"\x00\x00\x00", 8000)


def test_resampling_is_deterministic():
    # soxr dithers its own int16 output at random; the same input must give the same bytes.
    # (It showed in the flushed tail of a clip that ends loud.)
    pcm = (np.random.default_rng(0).standard_normal(20000) * 3000).astype("<i2").tobytes()
    outputs = set()
    for _ in range(10):
        resampler = PCMResampler(22050, 24000)
        streamed = b"".join(resampler.process(pcm[i : i + 4412]) for i in range(0, len(pcm), 4412))
        outputs.add((streamed + resampler.flush(), resample_pcm16(pcm, 22050, 24000)))
    assert len(outputs) == 1
