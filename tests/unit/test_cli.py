"""`voice-tts` in this process, on the embedded voice: token deltas, speak, voices, serve."""

from __future__ import annotations

import wave

import pytest

from voice_tts.cli import build_parser, llm_token_deltas, main

TEXT = "Hello there, the CLI speaks 2 short sentences. Then it stops."


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_token_deltas_rebuild_the_text(seed):
    deltas = llm_token_deltas(TEXT, seed)
    assert "".join(deltas) == TEXT
    assert all(1 <= len(delta) <= 3 for delta in deltas)
    assert len(deltas) > len(TEXT.split())


def test_token_deltas_keep_whitespace_and_vary_with_the_seed():
    text = "  two  spaces\nnew line "
    assert "".join(llm_token_deltas(text)) == text
    assert llm_token_deltas(TEXT, 0) == llm_token_deltas(TEXT, 0)
    assert llm_token_deltas(TEXT, 0) != llm_token_deltas(TEXT, 1)


def test_parser_defaults():
    serve = build_parser().parse_args(["serve"])
    assert (serve.host, serve.port, serve.model, serve.device) == ("127.0.0.1", 8000, None, None)
    speak = build_parser().parse_args(["speak", "hi"])
    assert (speak.output, speak.tokens_per_second, speak.url) == ("out.wav", 30.0, None)


def test_serve_with_an_unloadable_model_is_one_clear_line(tmp_path, capsys):
    status = main(["serve", "--model", str(tmp_path / "missing"), "--port", "0"])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("voice-tts: error: cannot load the model from")
    assert "Traceback" not in err


def test_max_context_without_a_model_is_one_clear_line(capsys):
    status = main(["serve", "--max-context", "512", "--port", "0"])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("voice-tts: error: --max-context sets a Qwen3-TTS model's rows per stream")


@pytest.mark.parametrize("option", ["--max-streams", "--max-context"])
@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_stream_limits_must_be_positive_numbers(option, value, capsys):
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["serve", option, value])
    assert exit_.value.code == 2
    assert option in capsys.readouterr().err


def test_speak_writes_a_wav_and_prints_the_timeline(tmp_path, capsys):
    output = tmp_path / "speech.wav"
    status = main(["speak", TEXT, "-o", str(output), "--tokens-per-second", "300"])
    out = capsys.readouterr().out
    assert status == 0
    with wave.open(str(output)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, 24000)
        assert wav.getnframes() > 24000
    for label in ("TTFA", "audio", "RTF", "word timeline:"):
        assert label in out
    timeline = out.split("word timeline:")[1].split()
    assert "Hello" in timeline and "stops." in timeline


def test_speak_at_another_rate(tmp_path, capsys):
    output = tmp_path / "speech.wav"
    assert (
        main(
            [
                "speak",
                "Eight kilohertz.",
                "-o",
                str(output),
                "--sample-rate",
                "8000",
                "--tokens-per-second",
                "300",
            ]
        )
        == 0
    )
    with wave.open(str(output)) as wav:
        assert wav.getframerate() == 8000 and wav.getnframes() > 0


def test_voices_lists_the_embedded_voices(capsys):
    assert main(["voices"]) == 0
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert "default" in names


def test_tokens_per_second_must_be_positive(capsys):
    assert main(["speak", "hi", "--tokens-per-second", "0"]) == 2
    assert "must be positive" in capsys.readouterr().err
