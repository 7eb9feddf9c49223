"""The private `TTSService` members the Pipecat adapter relies on (voice_tts/pipecat/
service_hooks.py): present in the installed Pipecat, and a loud import error, naming the
member, the day Pipecat renames or reshapes one."""

from __future__ import annotations

import pytest
from pipecat.services.tts_service import TTSService

from voice_tts.pipecat.service_hooks import check_hooks


def test_the_installed_pipecat_has_every_hook():
    check_hooks()


@pytest.mark.parametrize(
    "name", ["_apply_force_complete", "_record_context_audio_outcome", "_push_sequencer_frames"]
)
def test_a_missing_hook_fails_the_import_by_name(monkeypatch, name):
    monkeypatch.delattr(TTSService, name)
    with pytest.raises(ImportError, match=name):
        check_hooks()


def test_a_reshaped_hook_fails_the_import_by_name(monkeypatch):
    async def reshaped(self, context_id: str, last_word_pts: int):
        pass

    monkeypatch.setattr(TTSService, "_apply_force_complete", reshaped)
    with pytest.raises(ImportError, match="_apply_force_complete"):
        check_hooks()


def test_a_missing_attribute_fails_the_import_by_name(monkeypatch):
    original = TTSService.__init__

    def renamed(self, *args, **kwargs):  # an __init__ that no longer sets _turn_context_id
        original(self, *args, **kwargs)

    monkeypatch.setattr(TTSService, "__init__", renamed)
    with pytest.raises(ImportError, match="_turn_context_id"):
        check_hooks()
