"""Pipecat's category of each engine error: what Pipecat does with a failed turn or a refused
stream (a permanent category writes the service off until its settings change, so that a
`ServiceSwitcher` fails over; the others concern one turn)."""

from __future__ import annotations

from pipecat.utils.errors import ErrorCategory

from voice_tts.protocol import ErrorCode

ERROR_CATEGORIES = {
    ErrorCode.UNAUTHORIZED: ErrorCategory.AUTHENTICATION,
    ErrorCode.FORBIDDEN: ErrorCategory.AUTHORIZATION,
    ErrorCode.INVALID_VOICE: ErrorCategory.INVALID_REQUEST,
    ErrorCode.UNSUPPORTED_LANGUAGE: ErrorCategory.INVALID_REQUEST,
    ErrorCode.INVALID_SAMPLE_RATE: ErrorCategory.INVALID_REQUEST,
    ErrorCode.INVALID_SAMPLING: ErrorCategory.INVALID_REQUEST,
    ErrorCode.INVALID_LEXICON: ErrorCategory.INVALID_REQUEST,
    ErrorCode.CAPACITY: ErrorCategory.RATE_LIMIT,
    ErrorCode.DISCONNECTED: ErrorCategory.CONNECTIVITY,
    ErrorCode.UNREACHABLE: ErrorCategory.CONNECTIVITY,
    ErrorCode.NOT_READY: ErrorCategory.SERVER,
    ErrorCode.ENGINE_ERROR: ErrorCategory.SERVER,
    ErrorCode.ENGINE_CLOSED: ErrorCategory.SERVER,
}


def error_category(error: Exception | object, default: ErrorCategory | None = ErrorCategory.UNKNOWN) -> ErrorCategory | None:
    """The category of an engine `Error` or exception by its code, else `default`."""
    return ERROR_CATEGORIES.get(getattr(error, "code", None), default)


def refusal_category(error: Exception) -> ErrorCategory | None:
    """Pipecat's category of an engine refusing to open a turn's stream: the engine's error
    code when it has one, a bad request for a value it refused (ValueError), else Pipecat's
    own judgement of the exception (None)."""
    default = ErrorCategory.INVALID_REQUEST if isinstance(error, ValueError) else None
    return error_category(error, default)
