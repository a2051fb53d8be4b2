#!/usr/bin/env python3
"""A minimal OpenAI-compatible chat endpoint on Python's http.server, for bench_nagle.

HTTP/1.1 keep-alive with Nagle's algorithm left on (http.server's default), answering every
POST .../chat/completions at once with a fixed non-streamed reply. Prints "PORT <n>" once
listening on 127.0.0.1; runs until killed.
"""
import http.server
import json
import sys

REPLY = json.dumps({
    "id": "bench", "object": "chat.completion", "model": "bench-model",
    "choices": [{"index": 0, "finish_reason": "stop",
                 "message": {"role": "assistant", "content": "ok"}}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(REPLY)))
        self.end_headers()  # the header goes out in one write, the body in another
        self.wfile.write(REPLY)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("PORT", server.server_address[1], flush=True)
server.serve_forever()
