"""A Pipecat voice agent that speaks through `Qwen3StreamingTTS`, run like any Pipecat bot:

    python agents/pipecat_agent.py -t webrtc       # then open http://localhost:7860/
    python agents/pipecat_agent.py -t webrtc --host 0.0.0.0 --port 7860

Browser ⇄ SmallWebRTC → Silero VAD (barge-in) → [STT] → LLM → Qwen3StreamingTTS → browser.
The page at `/` (agents/pipecat_client.html) is the browser side, with nothing fetched from
elsewhere: it negotiates the SmallWebRTC offer itself (microphone in, bot audio out), shows the
bot's reply with each word lit as the transport plays it (RTVI messages on the data channel),
and marks a reply cut short when you speak over it. It works without internet access. (The
runner's prebuilt client at `/client/` loads Daily's call machine from a CDN when it connects.)

- LLM: with `OPENAI_API_KEY` set (and `OPENAI_BASE_URL` for any OpenAI-compatible server;
  `OPENAI_MODEL`, `OPENAI_STT_MODEL` pick the models) the agent transcribes and answers through
  that endpoint. Without it the agent runs fully offline: each user turn (detected by VAD alone)
  is answered from a script, streamed token by token at an LLM's pace.
- TTS engine: the server at `VOICE_TTS_URL` if set (one engine per GPU, shared by every bot),
  else the embedded voice in this process. One engine serves every session of the process.
- Expressive: with `VOICE_TTS_MARKUP=cartesia` the LLM is asked for Cartesia Sonic-3's tags
  (`<emotion value="excited"/>`, `<break time="500ms"/>`, `<speed ratio="0.9"/>`,
  `<volume ratio="1.2"/>`, `<spell>K7Q2</spell>`), as a Pipecat app written for Cartesia does
  (`expr`: LiveKit's markers); the engine acts on them, and neither the words on the page nor the
  LLM context ever hold them. Offline, the script is written in tags too.
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

from loguru import logger
from pipecat.audio.vad.silero import SileroVADAnalyzer
from pipecat.frames.frames import (
    Frame,
    LLMContextFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMRunFrame,
    LLMTextFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import (
    LLMContextAggregatorPair,
    LLMUserAggregatorParams,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.runner.types import SmallWebRTCRunnerArguments
from pipecat.transports.base_transport import BaseTransport, TransportParams
from pipecat.transports.smallwebrtc.transport import SmallWebRTCTransport
from pipecat.turns.empty_user_turn import EmptyUserTurnConfig
from pipecat.turns.user_start.vad_user_turn_start_strategy import VADUserTurnStartStrategy
from pipecat.turns.user_stop.speech_timeout_user_turn_stop_strategy import (
    SpeechTimeoutUserTurnStopStrategy,
)
from pipecat.turns.user_turn_strategies import UserTurnStrategies
from pipecat.workers.runner import WorkerRunner
from scripted_llm import CARTESIA_REPLIES, EXPR_REPLIES, ScriptedReplies, TokenPace, stream_tokens

from voice_tts.markup import EXPR_INSTRUCTIONS
from voice_tts.pipecat import Qwen3StreamingTTS, default_engine
from voice_tts.protocol import StreamingEngine

CLIENT_PAGE = Path(__file__).with_name("pipecat_client.html")
SYSTEM_PROMPT = (
    "You are a friendly voice assistant. Your answers are spoken aloud, so keep them short and "
    "conversational, in plain sentences without lists, markdown or emoji."
)
# "cartesia" or "expr": the LLM writes expressive tags in that dialect (voice_tts.markup).
MARKUP = os.environ.get("VOICE_TTS_MARKUP") or None
# What the LLM is told of the tags (a Pipecat app written for Cartesia tells it the same).
MARKUP_PROMPTS = {
    "cartesia": (
        " You may direct how you sound with these tags, which are never read aloud: "
        '<emotion value="EMOTION"/> before a sentence (for example content, excited, calm, sad, '
        'curious, sympathetic), <break time="500ms"/> for a pause, <speed ratio="0.9"/> (0.6 to '
        '1.5) and <volume ratio="1.2"/> (0.5 to 2.0) from there on, and <spell>A7X9</spell> to '
        "read codes character by character."
    ),
}
SCRIPTS = {"cartesia": CARTESIA_REPLIES, "expr": EXPR_REPLIES}
# Offline there is no transcript: every user turn reaches the LLM as this note.
_UNTRANSCRIBED_TURN = "The user spoke; no transcript is available offline."


class ScriptedLLM(FrameProcessor):
    """Offline stand-in for an LLM service: answers each `LLMContextFrame` with the next
    scripted reply, as `LLMFullResponseStartFrame`, `LLMTextFrame` tokens at an LLM's pace,
    and `LLMFullResponseEndFrame`. An interruption cancels the reply, as it does a real LLM's."""

    def __init__(
        self, replies: ScriptedReplies | None = None, pace: TokenPace = TokenPace(), **kwargs
    ):
        super().__init__(**kwargs)
        self._replies = replies or ScriptedReplies()
        self._pace = pace

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if not isinstance(frame, LLMContextFrame):
            await self.push_frame(frame, direction)
            return
        await self.push_frame(LLMFullResponseStartFrame())
        try:
            async for token in stream_tokens(self._replies.next_reply(), self._pace):
                await self.push_frame(LLMTextFrame(token))
        finally:
            await self.push_frame(LLMFullResponseEndFrame())


_engine: StreamingEngine | None = None


def shared_engine() -> StreamingEngine:
    """The process's engine, created on first use and shared by every session (an engine
    batches concurrent streams; one per session would waste the GPU)."""
    global _engine
    if _engine is None:
        _engine = default_engine()
    return _engine


def system_prompt(markup: str | None) -> str:
    """The system prompt, with the tags the LLM may write under `markup`."""
    if markup == "expr":
        return f"{SYSTEM_PROMPT}\n\n{EXPR_INSTRUCTIONS}"
    return SYSTEM_PROMPT + MARKUP_PROMPTS.get(markup, "")


def _has_llm_endpoint() -> bool:
    return bool(os.environ.get("OPENAI_API_KEY"))


def _endpoint_stt_and_llm() -> tuple[FrameProcessor, FrameProcessor]:
    from pipecat.services.openai.llm import OpenAILLMService
    from pipecat.services.openai.stt import OpenAISTTService

    base_url = os.environ.get("OPENAI_BASE_URL")
    stt = OpenAISTTService(
        api_key=os.environ["OPENAI_API_KEY"],
        base_url=base_url,
        settings=OpenAISTTService.Settings(
            model=os.environ.get("OPENAI_STT_MODEL", "gpt-4o-transcribe")
        ),
    )
    llm = OpenAILLMService(
        api_key=os.environ["OPENAI_API_KEY"],
        base_url=base_url,
        settings=OpenAILLMService.Settings(model=os.environ.get("OPENAI_MODEL", "gpt-4.1-mini")),
    )
    return stt, llm


def _user_params(transcribed: bool) -> LLMUserAggregatorParams:
    if transcribed:
        return LLMUserAggregatorParams(vad_analyzer=SileroVADAnalyzer())
    # No STT: VAD alone ends the turn, and every (transcript-less) turn is answered.
    return LLMUserAggregatorParams(
        vad_analyzer=SileroVADAnalyzer(),
        user_turn_strategies=UserTurnStrategies(
            start=[VADUserTurnStartStrategy()],
            stop=[SpeechTimeoutUserTurnStopStrategy(wait_for_transcript=False)],
        ),
        empty_user_turn=EmptyUserTurnConfig(
            interrupted_prompt=_UNTRANSCRIBED_TURN,
            idle_prompt=_UNTRANSCRIBED_TURN,
            max_consecutive_recoveries=sys.maxsize,
        ),
    )


async def run_bot(
    transport: BaseTransport,
    *,
    engine: StreamingEngine | None = None,
    llm: FrameProcessor | None = None,
    audio_in_sample_rate: int = 16000,
    audio_out_sample_rate: int = 24000,
    handle_sigint: bool = False,
    markup: str | None = None,
) -> LLMContext:
    """Run one conversation on `transport` until the client leaves; returns its context.

    `llm` defaults to the configured endpoint (with its STT) or, offline, `ScriptedLLM`.
    `markup`: the dialect of expressive tags the LLM writes (None: none).
    """
    stt = None
    if llm is None:
        if _has_llm_endpoint():
            stt, llm = _endpoint_stt_and_llm()
        else:
            llm = ScriptedLLM(ScriptedReplies(SCRIPTS[markup]) if markup else None)
    tts = Qwen3StreamingTTS(engine=engine or shared_engine(), markup=markup)

    context = LLMContext(messages=[{"role": "system", "content": system_prompt(markup)}])
    user_aggregator, assistant_aggregator = LLMContextAggregatorPair(
        context, user_params=_user_params(transcribed=stt is not None)
    )
    pipeline = Pipeline(
        [
            transport.input(),
            *([stt] if stt else []),
            user_aggregator,
            llm,
            tts,
            transport.output(),
            assistant_aggregator,
        ]
    )
    worker = PipelineWorker(
        pipeline,
        params=PipelineParams(
            audio_in_sample_rate=audio_in_sample_rate,
            audio_out_sample_rate=audio_out_sample_rate,
            enable_metrics=True,
            enable_usage_metrics=True,
        ),
    )

    @transport.event_handler("on_client_connected")
    async def on_client_connected(transport, client):
        logger.info("Client connected; greeting")
        context.add_message({"role": "developer", "content": "Greet the user briefly."})
        await worker.queue_frames([LLMRunFrame()])

    @transport.event_handler("on_client_disconnected")
    async def on_client_disconnected(transport, client):
        logger.info("Client disconnected")
        await worker.cancel()

    @assistant_aggregator.event_handler("on_assistant_turn_stopped")
    async def on_assistant_turn_stopped(aggregator, message):
        heard = "interrupted, heard" if message.interrupted else "said"
        logger.info(f"Assistant {heard}: {message.content!r}")

    runner = WorkerRunner(handle_sigint=handle_sigint)
    await runner.add_workers(worker)
    await runner.run()
    return context


async def bot(runner_args: SmallWebRTCRunnerArguments):
    """Entry point of the Pipecat development runner (SmallWebRTC)."""
    if not isinstance(runner_args, SmallWebRTCRunnerArguments):
        # The runner offers its `/ws` route whatever the transport: turn such a caller away
        # with a reason instead of failing inside the runner.
        reason = "this bot talks over SmallWebRTC; phone calls: agents/phone_agent.py"
        if websocket := getattr(runner_args, "websocket", None):
            await websocket.close(code=1008, reason=reason)
        return
    transport = SmallWebRTCTransport(
        webrtc_connection=runner_args.webrtc_connection,
        params=TransportParams(audio_in_enabled=True, audio_out_enabled=True),
    )
    await run_bot(transport, handle_sigint=runner_args.handle_sigint, markup=MARKUP)


if __name__ == "__main__":
    from fastapi.responses import FileResponse
    from pipecat.runner.run import app, main

    # Registered before the runner's own routes, so `/` is this page, not its redirect.
    @app.get("/", include_in_schema=False)
    async def offline_client() -> FileResponse:
        return FileResponse(CLIENT_PAGE)

    # The runner serves every transport unless told one; this bot speaks SmallWebRTC (the
    # other transports' routes, such as /ws, would hand it a connection it cannot use).
    if not any(arg in ("-t", "--transport") or arg.startswith("--transport=") for arg in sys.argv):
        sys.argv[1:1] = ["-t", "webrtc"]
    # Everything imported so far lives as long as the process: out of the collector's sight, a
    # full collection takes milliseconds instead of ~0.1 s with Pipecat/LiveKit loaded.
    gc.freeze()
    main()
