"""The audio loop of Google's cookbook client (Get_started_LiveAPI.py), as the reference peer.

Same structure as the cookbook: PyAudio (PortAudio -> ALSA -> PulseAudio) capture in 1024-frame chunks at
16 kHz sent with `send_realtime_input`, a receive task putting reply audio on a queue, and a playback task
writing it to a 24 kHz PyAudio output stream; `interrupted` empties the queue. Only the endpoint differs: it
talks to the local server given on the command line instead of Google's.

    python cookbook_loop.py --base-url http://127.0.0.1:PORT [--model gemini-3.8-live]
"""

import argparse
import asyncio
import sys

import pyaudio
from google import genai
from google.genai import types

FORMAT = pyaudio.paInt16
CHANNELS = 1
SEND_SAMPLE_RATE = 16000
RECEIVE_SAMPLE_RATE = 24000
CHUNK_SIZE = 1024


class AudioLoop:
    def __init__(self, client, model):
        self.client = client
        self.model = model
        self.audio_in_queue = None
        self.out_queue = None
        self.session = None
        self.pya = pyaudio.PyAudio()

    async def listen_audio(self):
        mic_info = self.pya.get_default_input_device_info()
        self.audio_stream = await asyncio.to_thread(
            self.pya.open, format=FORMAT, channels=CHANNELS, rate=SEND_SAMPLE_RATE, input=True,
            input_device_index=mic_info["index"], frames_per_buffer=CHUNK_SIZE)
        while True:
            data = await asyncio.to_thread(self.audio_stream.read, CHUNK_SIZE, exception_on_overflow=False)
            await self.out_queue.put({"data": data, "mime_type": "audio/pcm"})

    async def send_realtime(self):
        while True:
            msg = await self.out_queue.get()
            await self.session.send_realtime_input(audio=types.Blob(data=msg["data"], mime_type="audio/pcm;rate=16000"))

    async def receive_audio(self):
        while True:
            turn = self.session.receive()
            async for response in turn:
                if response.server_content and response.server_content.interrupted:
                    while not self.audio_in_queue.empty():
                        self.audio_in_queue.get_nowait()
                if response.data:
                    self.audio_in_queue.put_nowait(response.data)
            # A completed turn: the cookbook drops audio still queued for it only on interruption.

    async def play_audio(self):
        stream = await asyncio.to_thread(
            self.pya.open, format=FORMAT, channels=CHANNELS, rate=RECEIVE_SAMPLE_RATE, output=True)
        while True:
            data = await self.audio_in_queue.get()
            await asyncio.to_thread(stream.write, data)

    async def run(self):
        config = types.LiveConnectConfig(response_modalities=["AUDIO"])
        async with self.client.aio.live.connect(model=self.model, config=config) as session, asyncio.TaskGroup() as tg:
            self.session = session
            self.audio_in_queue = asyncio.Queue()
            self.out_queue = asyncio.Queue(maxsize=5)
            print("connected", flush=True)
            tg.create_task(self.send_realtime())
            tg.create_task(self.listen_audio())
            tg.create_task(self.receive_audio())
            tg.create_task(self.play_audio())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--base-url", required=True)
    p.add_argument("--model", default="gemini-3.8-live")
    a = p.parse_args()
    client = genai.Client(api_key="bench-key", http_options={"api_version": "v1beta", "base_url": a.base_url})
    # With an API key the SDK always dials wss://; the local server speaks plain ws:// on loopback.
    ws = a.base_url.replace("http://", "ws://", 1)
    client._api_client._websocket_base_url = lambda http_options=None: ws
    client._api_client._websocket_ssl_ctx = {}
    try:
        asyncio.run(AudioLoop(client, a.model).run())
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
