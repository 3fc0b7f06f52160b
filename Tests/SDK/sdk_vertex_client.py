"""The official google-genai SDK in Vertex AI mode as a client of `parley simulate`.

Usage: GOOGLE_APPLICATION_CREDENTIALS=key.json python sdk_vertex_client.py ws://127.0.0.1:PORT PROJECT LOCATION
The key file is a test service account whose token_uri is a loopback token endpoint: google-auth signs a JWT
with it and exchanges it there for the bearer token the SDK sends. Runs setup and one text turn; prints one
JSON object with what it saw; exits 0 when every step happened, 1 otherwise.
"""
import asyncio
import json
import sys

from google import genai
from google.genai import types


async def main(url, project, location):
    seen = {"setup": False, "audio_bytes": 0, "turn_completes": 0, "reply": ""}
    client = genai.Client(vertexai=True, project=project, location=location)
    # The SDK dials wss://{location}-aiplatform.googleapis.com; the simulator listens on plain ws:// on loopback.
    # The path, the bearer token and the model name stay the SDK's own.
    client._api_client._websocket_base_url = lambda http_options=None: url
    client._api_client._websocket_ssl_ctx = {}
    config = types.LiveConnectConfig(
        response_modalities=["AUDIO"], output_audio_transcription=types.AudioTranscriptionConfig())
    async with client.aio.live.connect(model="gemini-live-2.5-flash-native-audio", config=config) as session:
        seen["setup"] = True
        await session.send_client_content(
            turns=types.Content(role="user", parts=[types.Part(text="hello")]), turn_complete=True)
        words = []
        async for msg in session.receive():  # ends after turn_complete
            if msg.data:
                seen["audio_bytes"] += len(msg.data)
            content = msg.server_content
            if content and content.output_transcription and content.output_transcription.text:
                words.append(content.output_transcription.text)
            if content and content.turn_complete:
                seen["turn_completes"] += 1
        seen["reply"] = "".join(words).strip()
    print(json.dumps(seen))
    return 0 if seen["setup"] and seen["audio_bytes"] > 0 and seen["turn_completes"] == 1 and seen["reply"] else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3])))
