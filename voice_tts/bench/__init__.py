"""Measuring streaming TTS: the metric definitions (`metrics`), a load sweep against a running
server (`sweep`, the `voice-tts bench` command) and its plot (`plot`)."""
