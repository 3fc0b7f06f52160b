"""The strict judge: the official google-genai SDK's own types over frames a client sent.

Usage: python judge_frames.py FILE
FILE holds one client frame (JSON) per line. Each is validated as the SDK's `LiveClientMessage` (pydantic,
unknown fields forbidden, camelCase accepted as the service's proto JSON does). Prints one JSON object:
{"accepted": N, "refused": [{"line": L, "error": "..."}]}; exits 0 when every frame was accepted, 1 otherwise.
"""
import json
import sys

from google.genai import types


def main(path):
    accepted, refused = 0, []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                types.LiveClientMessage.model_validate(json.loads(line))
                accepted += 1
            except Exception as error:  # a validation error names the field; anything else is a refusal too
                refused.append({"line": number, "error": " ".join(str(error).split())[:300]})
    print(json.dumps({"accepted": accepted, "refused": refused}))
    return 0 if not refused else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
