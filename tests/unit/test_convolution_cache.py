"""The codec's convolution ways remembered across starts: what is kept, what is refused."""

from __future__ import annotations

import logging

import pytest

from engine.model.loader import load_model
from engine.runtime.convolution_cache import ConvolutionChoices

CHOICES = {(8, 4): {"a": "im2col", "b": "convolution"}, (256, 1): {"a": "taps", "b": "convolution"}}


def test_the_ways_come_back_for_the_same_key_only(tmp_path):
    ConvolutionChoices(tmp_path, "H200 / torch 2.11").save(CHOICES)
    assert ConvolutionChoices(tmp_path, "H200 / torch 2.11").load() == CHOICES
    assert ConvolutionChoices(tmp_path, "H100 / torch 2.11").load() == {}
    other = ConvolutionChoices(tmp_path, "H100 / torch 2.11")
    other.path.write_text(ConvolutionChoices(tmp_path, "H200 / torch 2.11").path.read_text())
    assert other.load() == {}, "a file whose key is another is not taken"


@pytest.mark.parametrize("content", ["{not json", '{"key": "k"}', '{"key": "k", "shapes": {"8by4": {}}}', "[]"])
def test_a_damaged_file_is_chosen_again_and_said(tmp_path, caplog, content):
    choices = ConvolutionChoices(tmp_path, "k")
    choices.path.write_text(content)
    with caplog.at_level(logging.WARNING):
        assert choices.load() == {}
    assert "ignoring the codec's remembered convolution ways" in caplog.text


def test_a_folder_that_cannot_be_written_is_only_logged(tmp_path, caplog):
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    with caplog.at_level(logging.WARNING):
        ConvolutionChoices(blocked / "cache", "k").save(CHOICES)
    assert "cannot remember the codec's convolution ways" in caplog.text
    assert list(tmp_path.iterdir()) == [blocked]


def test_the_codec_takes_only_choices_that_fit_its_convolutions(tiny_checkpoint):
    codec = load_model(tiny_checkpoint).codec
    ways = {conv.name: conv.methods for conv in codec._convs if len(conv.methods) > 1}
    assert ways, "the tiny codec has convolutions with a choice"
    fitting = {name: methods[-1] for name, methods in ways.items()}
    foreign = dict(fitting, **{next(iter(ways)): "winograd"})
    missing = dict(list(fitting.items())[1:])
    codec.convolution_methods[(1, 1)] = {name: methods[0] for name, methods in ways.items()}
    taken = codec.adopt_convolution_methods({(8, 4): fitting, (8, 2): foreign, (8, 1): missing, (1, 1): fitting})
    assert taken == 1
    assert codec.convolution_methods[(8, 4)] == fitting
    assert (8, 2) not in codec.convolution_methods and (8, 1) not in codec.convolution_methods
    assert codec.convolution_methods[(1, 1)] != fitting, "a shape chosen already keeps its choice"
