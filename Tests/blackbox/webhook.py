"""A webhook receiver for the function tests: checks the Standard Webhooks signature Latchkey sends, records what
arrived, and answers what the test's `decide(body, valid)` returns (bytes, or an object sent as JSON)."""
import base64
import hashlib
import hmac
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

from harness import free_port, send_json


class SignedWebhook:
    def __init__(self, decide):
        key = os.urandom(24)
        self.secret = "whsec_" + base64.b64encode(key).decode()
        self.received = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                signed = f"{self.headers['webhook-id']}.{self.headers['webhook-timestamp']}.".encode() + body
                expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
                valid = self.headers["webhook-signature"] == f"v1,{expected}" \
                    and abs(time.time() - int(self.headers["webhook-timestamp"])) < 60
                request = json.loads(body)
                receiver.received.append({"body": request, "valid": valid})
                answer = decide(request, valid)
                send_json(self, 200, answer if isinstance(answer, bytes) else json.dumps(answer).encode())

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", free_port()), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"

    def shutdown(self):
        self.server.shutdown()
