"""Which stream eSpeak NG synthesizes next.

libespeak-ng is a process-wide singleton, so one thread owns it and streams take turns, one
piece (a clause) per turn: a stream that has produced no audio yet goes first, then the others
round-robin, so a long reply never holds back another stream's first audio for more than a
clause. Among streams without audio, a lower `priority` value goes first, then arrival order;
priority orders first audio only (after it, every stream takes its turn in the round), and a
stream waiting for its first audio longer than `PRIORITY_MAX_WAIT_S` is served as if it had the
highest priority, so a steady stream of favoured turns never starves the others. A stream whose
consumer is far behind is skipped until it catches up.

A piece takes 5-50 ms of synthesis on a loaded core, and a favoured stream's first audio does
not wait for another stream's piece to end: when text comes for a stream without audio that
outranks the one being served, the served job yields at its next audio buffer (`should_yield`,
checked by the job) and is served again first once the favoured one has had its turn.

One job's failure stays that job's. If the loop itself fails, every stream ends with
`engine_error` and `failure` says why; the loop does not restart (the server reports it on
`/health` and exits for its supervisor to start a fresh process).
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
from typing import Callable, Protocol

from engine.backends.espeak_library import EspeakLibrary
from voice_tts.protocol import ErrorCode

log = logging.getLogger(__name__)

# How long priority may hold back a stream's first audio: past it, the stream goes ahead of
# every stream that has waited less, whatever their priorities. A burst of 64 first clauses
# takes about 2 s of synthesis here, so favoured turns are not overtaken by a burst they
# were put ahead of, and no turn waits for its first audio much longer than this because of
# priority.
PRIORITY_MAX_WAIT_S = 3.0


class SynthesisJob(Protocol):
    @property
    def finished(self) -> bool:
        """Nothing more will ever be done for this job."""

    @property
    def has_audio(self) -> bool:
        """The job has produced audio (jobs without audio get the first turn)."""

    @property
    def priority(self) -> int:
        """Among jobs without audio, a lower value gets the first turn."""

    def ready(self) -> bool:
        """A turn now would do work."""

    def due_at(self) -> float | None:
        """When (time.monotonic) the job becomes ready without outside help; None: not on its own."""

    def step(self, library: EspeakLibrary) -> None:
        """Take one turn (one piece, or the end of the stream) on the scheduler's thread."""

    def fail(self, code: str, message: str) -> None:
        """End the job with an error."""


_NO_CONTENDER = float("inf")


class SynthesisScheduler:
    def __init__(self, make_library: Callable[[], EspeakLibrary] = EspeakLibrary) -> None:
        self._make_library = make_library
        self._cond = threading.Condition()
        self._jobs: list[SynthesisJob] = []  # least recently served first
        self._added_at: dict[SynthesisJob, float] = {}  # time.monotonic() when each job came
        self._thread: threading.Thread | None = None
        # The rank the job being served holds the thread at, and the best priority among jobs
        # without audio that got work since it was chosen: lower than that rank, it yields.
        self._serving_rank = float("-inf")
        self._contender = _NO_CONTENDER
        self._yielded = False
        # Set when the loop itself failed (not one job's step): nothing is synthesized any more.
        self.failure: str | None = None

    def add(self, job: SynthesisJob) -> None:
        if self.failure is not None:
            job.fail(ErrorCode.ENGINE_ERROR, self.failure)
            return
        with self._cond:
            self._jobs.append(job)
            self._added_at[job] = time.monotonic()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="espeak-synthesis", daemon=True)
                self._thread.start()
            self._cond.notify()

    def drop_jobs(self) -> None:
        """Forget every job (at interpreter exit, so the idle thread keeps no stream alive)."""
        with self._cond:
            self._jobs.clear()
            self._added_at.clear()

    def wake(self, job: SynthesisJob | None = None) -> None:
        """A job's state changed (text arrived, input ended, its consumer caught up); `job`,
        if given, has new work."""
        with self._cond:
            if job is not None and not job.has_audio:
                self._contender = min(self._contender, job.priority)
            self._cond.notify()

    def should_yield(self) -> bool:
        """Called by the job being served, between its audio buffers: a job waiting for its
        first audio outranks it, so it should stop now and leave the rest of its turn for
        later (it is served again first, after the jobs waiting for their first audio)."""
        if self._contender < self._serving_rank:
            self._yielded = True
        return self._yielded

    def _next_job(self) -> SynthesisJob | None:
        for job in self._jobs:
            if job.finished:
                del self._added_at[job]
        self._jobs = [job for job in self._jobs if not job.finished]
        ready = [job for job in self._jobs if job.ready()]
        if not ready:
            return None
        first_audio = [job for job in ready if not job.has_audio]
        # min() keeps the first of equals: arrival order within a priority.
        job = min(first_audio, key=self._first_audio_rank) if first_audio else ready[0]
        self._jobs.remove(job)
        self._jobs.append(job)
        self._serving_rank = self._first_audio_rank(job) if not job.has_audio else job.priority
        self._contender, self._yielded = _NO_CONTENDER, False
        return job

    def _first_audio_rank(self, job: SynthesisJob) -> float:
        waited = time.monotonic() - self._added_at[job]
        return job.priority if waited < PRIORITY_MAX_WAIT_S else float("-inf")

    def _time_to_next_due(self) -> float | None:
        """Seconds until a job's bounded wait ends (None: nothing is timed; sleep until woken)."""
        due = [t for job in self._jobs if (t := job.due_at()) is not None]
        return max(0.0, min(due) - time.monotonic()) if due else None

    def _run(self) -> None:
        try:
            self._serve()
        except BaseException as exc:  # noqa: BLE001 - every stream ends with an error, never hangs
            log.exception("the eSpeak NG synthesis loop failed")
            with self._cond:
                self.failure = f"the synthesis loop failed: {exc!r}"
                jobs, self._jobs = self._jobs, []
                self._added_at.clear()
            for job in jobs:
                job.fail(ErrorCode.ENGINE_ERROR, self.failure)

    def _serve(self) -> None:
        library, unavailable = None, ""
        try:
            library = self._make_library()
        except Exception as exc:  # noqa: BLE001 - every stream reports it
            log.exception("libespeak-ng is unavailable")
            unavailable = f"libespeak-ng is unavailable: {exc}"
        while True:
            with self._cond:
                job = self._next_job()
                while job is None:
                    self._cond.wait(self._time_to_next_due())
                    job = self._next_job()
            if library is None:
                job.fail("engine_unavailable", unavailable)
            else:
                try:
                    job.step(library)
                except Exception as exc:  # noqa: BLE001 - one stream's failure stays its own
                    log.exception("eSpeak NG synthesis failed")
                    job.fail("synthesis_failed", f"eSpeak NG synthesis failed: {exc}")
                with self._cond:
                    if self._yielded and job in self._jobs:
                        # Its turn was cut short: next in the round.
                        self._jobs.remove(job)
                        self._jobs.insert(0, job)
                    self._serving_rank = float("-inf")
            # An idle thread holds no stream: finished streams are freed as soon as their
            # owners drop them, also at interpreter exit.
            job = None


_shared: SynthesisScheduler | None = None
_shared_lock = threading.Lock()


def shared_scheduler() -> SynthesisScheduler:
    """The process's scheduler (there is one libespeak-ng per process)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = SynthesisScheduler()
            atexit.register(_shared.drop_jobs)
        return _shared
