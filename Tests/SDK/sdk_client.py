"""The official google-genai SDK as a second client of `parley simulate`.

Usage: python sdk_client.py ws://127.0.0.1:PORT
Runs setup, a text turn, a tool call and its response, and checks audio out and turn completion. Prints one
JSON object with what it saw; exits 0 when every step happened, 1 otherwise.
"""
import asyncio
import json
import sys

from google import genai
from google.genai import types


async def turn(session, text, seen, answer_tools=None):
    await session.send_client_content(
        turns=types.Content(role="user", parts=[types.Part(text=text)]), turn_complete=True)
    words = []
    async for msg in session.receive():  # ends after turn_complete
        if msg.data:
            seen["audio_bytes"] += len(msg.data)
        content = msg.server_content
        if content and content.output_transcription and content.output_transcription.text:
            words.append(content.output_transcription.text)
        if content and content.turn_complete:
            seen["turn_completes"] += 1
        if msg.tool_call and answer_tools:
            for call in msg.tool_call.function_calls:
                seen["tool_calls"].append(call.name)
                await session.send_tool_response(function_responses=[
                    types.FunctionResponse(id=call.id, name=call.name, response=answer_tools)])
    return "".join(words).strip()


async def main(url):
    seen = {"setup": False, "audio_bytes": 0, "turn_completes": 0, "tool_calls": [], "replies": []}
    client = genai.Client(api_key="sdk-test-key")
    # With an API key the SDK always dials wss://; the simulator listens on plain ws:// on loopback.
    client._api_client._websocket_base_url = lambda http_options=None: url
    client._api_client._websocket_ssl_ctx = {}
    config = types.LiveConnectConfig(
        response_modalities=["AUDIO"],
        speech_config=types.SpeechConfig(
            voice_config=types.VoiceConfig(prebuilt_voice_config=types.PrebuiltVoiceConfig(voice_name="Kore"))),
        output_audio_transcription=types.AudioTranscriptionConfig(),
        tools=[types.Tool(function_declarations=[types.FunctionDeclaration(
            name="get_current_time", description="The current time.",
            parameters=types.Schema(type="OBJECT", properties={}), behavior=types.Behavior.BLOCKING)])],
    )
    async with client.aio.live.connect(model="gemini-3.8-live", config=config) as session:
        seen["setup"] = True
        seen["replies"].append(await turn(session, "hello", seen))
        seen["replies"].append(await turn(session, "what time is it", seen, answer_tools={"time": "10:42"}))
    ok = (seen["setup"] and seen["audio_bytes"] > 0 and seen["turn_completes"] == 2
          and seen["tool_calls"] == ["get_current_time"] and "10:42" in seen["replies"][1])
    print(json.dumps(seen))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
