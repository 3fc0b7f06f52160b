#!/usr/bin/env python3
"""Writes the seed corpora in Fuzz/corpus/TARGET/ from the tests and fixtures (run from the package root; the
output is committed, so this runs only when the tests grow). Each seed is named after where it came from."""
import hashlib
import io
import json
import os
import re
import struct
import subprocess
import tempfile
import wave

OUT = "Fuzz/corpus"


def put(target, name, data):
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"{name}-{hashlib.sha1(data).hexdigest()[:8]}"), "wb") as f:
        f.write(data)


def swift_raw_strings(path):
    """The #"…"# literals of a Swift file."""
    return re.findall(r'#"(.*?)"#', open(path, encoding="utf-8").read())


def swift_multiline(path):
    """The \"\"\" … \"\"\" literals of a Swift file, with their indentation removed."""
    out = []
    for m in re.finditer(r'"""\n(.*?)\n(\s*)"""', open(path, encoding="utf-8").read(), re.S):
        indent = m.group(2)
        out.append("\n".join(l[len(indent):] if l.startswith(indent) else l for l in m.group(1).split("\n")) + "\n")
    return out


def swift_escapes(s):
    s = re.sub(r"\\u\{([0-9a-fA-F]+)\}", lambda m: chr(int(m.group(1), 16)), s)
    return s.replace("\\n", "\n").replace("\\t", "\t").replace('\\"', '"').replace("\\\\", "\\")


# Server frames: the fuzz test's corpus, the frames captured in the field, the codec tests; and each in snake_case.
frames = []
for f in ["Tests/LiveTests/FuzzTests.swift", "Tests/LiveTests/CapturedFramesTests.swift", "Tests/LiveTests/CodecTests.swift"]:
    frames += [s for s in swift_raw_strings(f) if s.startswith("{") and ('"server' in s or '"setup' in s or '"tool' in s
                                                                         or '"goAway' in s or '"session' in s or '"usage' in s)]
for i, s in enumerate(dict.fromkeys(frames)):
    put("frames", "test", s)
    snake = re.sub(r'"([a-z]+[A-Z][A-Za-z]*)"\s*:', lambda m: '"' + re.sub(r"([A-Z])", lambda c: "_" + c.group(1).lower(), m.group(1)) + '":', s)
    if snake != s:
        put("frames", "snake", snake)
    try:
        put("frames", "pretty", json.dumps(json.loads(s), indent=2) + "\n")  # as the service sends them
    except ValueError:
        pass

# Close reasons: two bytes of code, then the reason, for every close the service is known to send.
closes = []
for f in ["Sources/Live/CloseReason.swift", "Sources/Live/CloseClassification.swift", "Tests/LiveTests/CloseTableTests.swift"]:
    text = open(f, encoding="utf-8").read()
    closes += re.findall(r'code: (\d+),\s*reason:\s*"((?:[^"\\]|\\.)*)"', text)
    closes += re.findall(r'kind\((\d+), "((?:[^"\\]|\\.)*)"\)', text)
for code, reason in dict.fromkeys(closes):
    put("close", "reason", struct.pack(">H", int(code)) + swift_escapes(reason).encode())

# Config: the config tests' TOML, and the example in the README if any.
for s in swift_multiline("Tests/AppTests/ConfigTests.swift"):
    put("config", "test", s)
for s in re.findall(r'(?:parse|apply)\((?:toml: )?"((?:[^"\\]|\\.)*)"', open("Tests/AppTests/ConfigTests.swift", encoding="utf-8").read()):
    put("config", "test", swift_escapes(s).replace('\\"', '"'))
put("config", "full", """model = "gemini-live"
voice = "Puck"
system_instruction = "Be brief."
mode = "ptt"
echo_cancel = "webrtc"
google_search = true
thinking = true
thinking_budget = 512
language = "en-US"
affective_dialog = false
proactive_audio = true
transcript_dir = "~/t"
log_file = "/tmp/p.log"

[vad]
start_sensitivity = "high"
end_sensitivity = "low"
prefix_padding_ms = 20
silence_duration_ms = 500

[keys]
quit = ["q", "ctrl+c"]
voice_menu = "alt+v"

[tools]
get_current_time = true
read_file = false
list_directory = true
run_shell_command = false
allowed_directories = ["~", "/tmp"]
pass_env = ["PATH"]
call_timeout = 30
mcp_start_timeout = 5

[tools.behavior]
get_current_time = "non_blocking"

[tools.scheduling]
get_current_time = "when_idle"

[vision]
camera = "/dev/video0"

[[mcp]]
name = "demo"
command = "demo-server"
args = ["--stdio", "-v"]
confirm = "always"

[[mcp]]
command = "other"
""")
for s in re.findall(r"```toml\n(.*?)```", open("README.md", encoding="utf-8").read(), re.S):
    put("config", "readme", s)

# Themes: the bundled ones and the theme tests' TOML.
for n in sorted(os.listdir("themes")):
    put("theme", n.replace(".toml", ""), open(os.path.join("themes", n), "rb").read())
for s in swift_multiline("Tests/TUITests/ThemeTests.swift"):
    put("theme", "test", s)

# Transcripts: a session as parley writes one (every kind of record), and one cut short by a crash.
records = [
    {"kind": "session", "model": "gemini-live", "voice": "Puck", "time": "2026-11-24T01:58:10Z"},
    {"kind": "user", "text": "soak turn 1", "time": "2026-11-24T01:58:11Z"},
    {"kind": "model", "text": "You said: soak turn 1.", "time": "2026-11-24T01:58:12Z", "interrupted": True},
    {"kind": "tool", "toolID": "c1", "toolName": "get_current_time", "arguments": "{\"zone\":\"UTC\"}", "state": "done",
     "result": "{\"time\":\"01:58\"}", "duration": 0.012},
    {"kind": "usage", "usage": {"promptTokenCount": 154, "responseTokenCount": 80,
                                "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 154}]}},
    {"kind": "reconnect", "resumed": True}, {"kind": "voice", "voice": "Kore", "resumed": False},
    {"kind": "queued", "text": "offline question", "turnID": 3}, {"kind": "sent", "turnID": 3},
    {"kind": "system", "text": "reconnected \u2014 conversation resumed"}, {"kind": "error", "text": "connection lost \u001b[31m"},
]
lines = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records)
put("transcript", "session", lines)
put("transcript", "cut", lines[: len(lines) - 17])

# State files.
put("state", "voice", '{"voice":"Puck"}')
put("state", "resume", '{"handle":"CgxhYmM","savedAt":1795000000.5,"model":"gemini-live","voice":"Puck","transcript":"/tmp/s.jsonl"}')

# Keys: the key decoder tests' input; the first byte picks where the reads end.
for s in dict.fromkeys(re.findall(r'"((?:[^"\\]|\\.)*\\u\{1[bB]\}(?:[^"\\]|\\.)*)"', open("Tests/TUITests/KeyDecoderTests.swift", encoding="utf-8").read())):
    put("keys", "test", b"\x07" + swift_escapes(s).encode())
put("keys", "paste", b"\x03\x1b[200~a paste\nwith lines\x1b[201~\x1b[13u")
put("keys", "utf8", b"\x05h\xc3\xa9llo \xe2\x80\x94 \xf0\x9f\x99\x82\x7f\r\x1b")

# WAV: mono and stereo PCM, a file with a LIST chunk before the data, and WAVE_FORMAT_EXTENSIBLE.
def wav(channels, rate, frames):
    b = io.BytesIO()
    with wave.open(b, "wb") as w:
        w.setnchannels(channels); w.setsampwidth(2); w.setframerate(rate)
        w.writeframes(b"".join(struct.pack("<h", (i * 997) % 6000 - 3000) for i in range(frames * channels)))
    return b.getvalue()
put("wav", "mono", wav(1, 16000, 8))
put("wav", "stereo", wav(2, 24000, 6))
m = wav(1, 16000, 4)
lst = b"LIST" + struct.pack("<I", 10) + b"INFOISFT\x00\x00"
put("wav", "list", m[:4] + struct.pack("<I", len(m) - 8 + len(lst)) + m[8:36] + lst + m[36:])
fmt = struct.pack("<HHIIHHHHIH14s", 0xFFFE, 1, 16000, 32000, 2, 16, 22, 16, 4, 1, b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71")
data = b"".join(struct.pack("<h", v) for v in (0, 1000, -1000, 32767))
put("wav", "extensible", b"RIFF" + struct.pack("<I", 4 + 8 + len(fmt) + 8 + len(data)) + b"WAVEfmt " + struct.pack("<I", len(fmt)) + fmt
    + b"data" + struct.pack("<I", len(data)) + data)

# MCP: what a server answers, one JSON-RPC message per line; the first byte sets the line limit (×64 + 16 bytes).
mcp = [
    {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                                             "serverInfo": {"name": "demo", "version": "1.0"}}},
    {"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "add", "description": "adds", "inputSchema": {
        "type": "object", "$schema": "http://json-schema.org/draft-07/schema#", "additionalProperties": False,
        "properties": {"a": {"type": "number"}, "b": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "integer"}}]}},
        "required": ["a"]}}], "nextCursor": "p2"}},
    {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "3"}, {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                                                        {"type": "resource", "resource": {"uri": "file:///x", "text": "x"}},
                                                        {"type": "resource_link", "uri": "file:///y", "name": "y"}], "isError": False}},
    {"jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": "Method not found"}},
    {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
]
put("mcp", "session", b"\xff" + "".join(json.dumps(m) + "\n" for m in mcp).encode())
put("mcp", "small-limit", b"\x01" + "".join(json.dumps(m) + "\n" for m in mcp[2:4]).encode())

# Images: tiny JPEGs from ffmpeg (grey and colour), two in one MJPEG stream, and PPM pictures.
with tempfile.TemporaryDirectory() as tmp:
    for name, fmt in [("grey", "gray"), ("colour", "yuvj420p")]:
        out = os.path.join(tmp, name + ".jpg")
        subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=8x6:rate=1", "-frames:v", "1",
                        "-pix_fmt", fmt, "-y", out], check=True)
        jpg = open(out, "rb").read()
        put("image", "jpeg-" + name, jpg)
        put("image", "mjpeg-" + name, b"\x05" + jpg + jpg)
put("image", "ppm", b"\x09P6 2 1 255\n" + bytes(range(6)) + b"P6\n1 1\n255\n" + b"\x01\x02\x03")
print("seeds:", {t: len(os.listdir(os.path.join(OUT, t))) for t in sorted(os.listdir(OUT))})
