"""The error a checkpoint folder raises when it cannot be loaded."""


class CheckpointError(ValueError):
    """A checkpoint folder is incomplete, inconsistent or not a supported Qwen3-TTS model.

    The message always names the file (and the field or tensor) that is wrong, so that a user can
    tell a truncated download from a wrong model type without reading code.
    """
