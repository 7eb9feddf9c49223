"""`voice-tts` in this process, on the embedded voice: token deltas, speak, voices, serve."""

from __future__ import annotations

import wave

import pytest

from engine.server.settings import GROUPS, SET_BY_THE_SERVER, SETTING_OPTIONS, ServerSettings, settings_from
from voice_tts.bench.deltas import llm_token_deltas
from voice_tts.cli import build_parser, main

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
    assert (serve.model, serve.revision, serve.device) == (None, None, None)
    assert settings_from(serve, {}) == ServerSettings()
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


# Every ServerSettings field is a serve flag and an environment variable ----------------------


def other_value(field: str) -> object:
    """A valid value of `field` other than its default."""
    info = ServerSettings.model_fields[field]
    default = info.default
    if field == "log_level":
        return "debug"
    if field == "kv_cache_memory":
        return "24GiB"
    if isinstance(default, bool):
        return not default
    if isinstance(default, int):
        return default + 1
    if isinstance(default, float):
        return default * 2 + 0.5
    if info.annotation in (int | None,):
        return 7
    return "a-value"


@pytest.mark.parametrize("field", sorted(set(ServerSettings.model_fields) - SET_BY_THE_SERVER))
def test_each_setting_round_trips_through_its_flag(field):
    value = other_value(field)
    flag = "--" + field.replace("_", "-")
    args = build_parser().parse_args(["serve", flag, str(value)])
    assert getattr(settings_from(args, {}), field) == value


@pytest.mark.parametrize("field", sorted(set(ServerSettings.model_fields) - SET_BY_THE_SERVER))
def test_each_setting_round_trips_through_its_environment_variable(field):
    value = other_value(field)
    args = build_parser().parse_args(["serve"])
    settings = settings_from(args, {"VOICE_TTS_" + field.upper(): str(value)})
    assert getattr(settings, field) == value
    assert settings.model_dump(exclude={field}) == ServerSettings().model_dump(exclude={field})


def test_a_flag_wins_over_its_environment_variable():
    args = build_parser().parse_args(["serve", "--ws-idle-timeout-s", "300"])
    assert settings_from(args, {"VOICE_TTS_WS_IDLE_TIMEOUT_S": "60"}).ws_idle_timeout_s == 300


@pytest.mark.parametrize(
    "flag, value, reason",
    [
        ("--ws-idle-timeout-s", "0", "Input should be greater than 0"),
        ("--port", "eighty", "Input should be a valid integer"),
        ("--port", "70000", "Input should be less than or equal to 65535"),
        ("--log-level", "loud", "Input should be 'critical', 'error', 'warning', 'info', 'debug' or 'trace'"),
        ("--max-message-bytes", "10", "Input should be greater than or equal to 1024"),
    ],
)
def test_a_bad_flag_value_is_one_clear_line(flag, value, reason, capsys):
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["serve", flag, value])
    assert exit_.value.code == 2
    assert f"error: argument {flag}: {value!r}: {reason}" in capsys.readouterr().err


def test_a_bad_environment_value_is_one_clear_line(monkeypatch, capsys):
    monkeypatch.setenv("VOICE_TTS_MAX_CLIENT_LAG_S", "soon")
    assert main(["serve", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err == "voice-tts: error: VOICE_TTS_MAX_CLIENT_LAG_S='soon': Input should be a valid number, unable to parse string as a number\n"


def test_an_api_key_and_a_key_file_together_are_refused(tmp_path, capsys):
    key_file = tmp_path / "key"
    key_file.write_text("k\n")
    assert main(["serve", "--api-key", "k", "--api-key-file", str(key_file), "--port", "0"]) == 2
    assert "--api-key or --api-key-file, not both" in capsys.readouterr().err


def test_serve_help_shows_every_setting_in_its_group(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--help"])
    help_text = capsys.readouterr().out
    sections = {}
    for title in ["model", *GROUPS.values()]:
        start = help_text.index(f"\n{title}:\n")
        sections[title] = start
    assert list(sections) == sorted(sections, key=sections.get), "groups out of order"
    bounds = sorted(sections.values()) + [len(help_text)]
    for option in SETTING_OPTIONS:
        title = GROUPS[option.group]
        section = help_text[sections[title] : bounds[bounds.index(sections[title]) + 1]]
        assert f"  {option.flag} " in section and f"${option.env}" in section.replace("\n", "").replace(" ", ""), option.flag
    assert "ws-idle-timeout-s" in help_text


def test_speak_at_a_speed_is_shorter_with_the_same_words(tmp_path, capsys):
    pytest.importorskip("pylibrb")
    frames = {}
    for speed in ("1.0", "1.5"):
        output = tmp_path / f"speech-{speed}.wav"
        assert main(["speak", TEXT, "-o", str(output), "--speed", speed, "--tokens-per-second", "300"]) == 0
        timeline = capsys.readouterr().out.split("word timeline:")[1]
        assert "Hello" in timeline and "stops." in timeline
        with wave.open(str(output)) as wav:
            frames[speed] = wav.getnframes()
    assert frames["1.5"] == pytest.approx(frames["1.0"] / 1.5, rel=0.03)


@pytest.mark.parametrize("speed", ["3", "0.2", "fast"])
def test_a_speed_outside_the_range_is_one_clear_line(speed, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["speak", "hi", "--speed", speed])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "--speed" in err and "Traceback" not in err
