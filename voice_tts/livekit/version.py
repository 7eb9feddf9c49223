"""The plugin's version is the distribution's version."""

from voice_tts import __version__

__all__ = ["__version__"]
