"""The Pipecat voice agent on the phone: Twilio Media Streams over a FastAPI WebSocket
(8 kHz µ-law both ways; the TTS asks the engine for 8 kHz, the serializer encodes µ-law).

    python agents/phone_agent.py --port 8765

Point a Twilio number's voice webhook at `https://<public host>/` (e.g. through a tunnel): the
answer connects the call's media stream to `wss://<public host>/ws`, and the same bot as
`pipecat_agent.py` talks on it. With `TWILIO_ACCOUNT_SID` and `TWILIO_AUTH_TOKEN` set, the call
is hung up when the bot ends; barge-in sends Twilio a `clear` so queued speech stops at once.
"""

from __future__ import annotations

import argparse
import gc
import os
from collections.abc import Callable

import uvicorn
from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import Response
from loguru import logger
from pipecat.processors.frame_processor import FrameProcessor
from pipecat.runner.utils import parse_telephony_websocket
from pipecat.serializers.twilio import TwilioFrameSerializer
from pipecat.transports.websocket.fastapi import FastAPIWebsocketParams, FastAPIWebsocketTransport
from pipecat_agent import run_bot

from voice_tts.protocol import StreamingEngine

PHONE_SAMPLE_RATE = 8000


def create_app(
    *,
    engine: StreamingEngine | None = None,
    llm_factory: Callable[[], FrameProcessor] | None = None,
) -> FastAPI:
    """The phone agent's web app. `engine` defaults to the process's shared engine and
    `llm_factory` to the configured LLM (offline: the scripted one), one LLM per call."""
    app = FastAPI()

    @app.post("/")
    async def answer_call(request: Request) -> Response:
        """Twilio's voice webhook: stream the call's audio to this server's `/ws`."""
        host = request.headers.get("host", request.url.netloc)
        twiml = (
            '<?xml version="1.0" encoding="UTF-8"?><Response><Connect>'
            f'<Stream url="wss://{host}/ws"/></Connect><Pause length="40"/></Response>'
        )
        return Response(content=twiml, media_type="application/xml")

    @app.websocket("/ws")
    async def media_stream(websocket: WebSocket):
        await websocket.accept()
        transport_type, call_data = await parse_telephony_websocket(websocket)
        if transport_type != "twilio":
            logger.warning(f"Not a Twilio media stream ({transport_type}); closing")
            await websocket.close()
            return
        account_sid = os.environ.get("TWILIO_ACCOUNT_SID")
        auth_token = os.environ.get("TWILIO_AUTH_TOKEN")
        serializer = TwilioFrameSerializer(
            stream_sid=call_data.stream_id,
            call_sid=call_data.call_id,
            account_sid=account_sid,
            auth_token=auth_token,
            params=TwilioFrameSerializer.InputParams(
                auto_hang_up=bool(account_sid and auth_token and call_data.call_id)
            ),
        )
        transport = FastAPIWebsocketTransport(
            websocket=websocket,
            params=FastAPIWebsocketParams(
                audio_in_enabled=True,
                audio_out_enabled=True,
                add_wav_header=False,
                serializer=serializer,
            ),
        )
        logger.info(f"Call {call_data.call_id} connected (stream {call_data.stream_id})")
        await run_bot(
            transport,
            engine=engine,
            llm=llm_factory() if llm_factory else None,
            audio_in_sample_rate=PHONE_SAMPLE_RATE,
            audio_out_sample_rate=PHONE_SAMPLE_RATE,
        )

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description="Pipecat phone agent (Twilio Media Streams)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    # Everything imported so far lives as long as the process: out of the collector's sight, a
    # full collection takes milliseconds instead of ~0.1 s with Pipecat/LiveKit loaded.
    gc.freeze()
    uvicorn.run(create_app(), host=args.host, port=args.port)


if __name__ == "__main__":
    main()
