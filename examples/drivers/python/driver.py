#!/usr/bin/env python3
"""A FlowCheck driver skeleton in Python: the standard library only.

It speaks the driver protocol (docs/protocol.md) for Moltin's `auth` and
`products`, with a client of its own standing in for your SDK: replace the three marked places
with calls into your SDK, and it passes MLT-AUTH as it stands:

    swift build --product flowcheck
    .build/debug/flowcheck --driver 'python3 examples/drivers/python/driver.py' --filter '^MLT-AUTH$' --no-derived specs/

Every line on stdout is a protocol message; log to stderr.
"""
import json
import sys
import urllib.error
import urllib.parse
import urllib.request


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


class App:
    """What a flow runs: one per `start`. YOUR SDK goes here (1 of 3): build it in __init__."""

    def __init__(self, start):
        self.base_url = start["baseURL"]
        self.token = {}  # the token store: {"accessToken", "tokenType", "expiresAt"}

    def auth(self, arguments):
        # YOUR SDK (2 of 3): its login with client credentials.
        form = urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": arguments["clientId"], "client_secret": arguments["clientSecret"]})
        request = urllib.request.Request(self.base_url + "/oauth/access_token", data=form.encode(), headers={"Content-Type": "application/x-www-form-urlencoded"})
        answer = json.load(urllib.request.urlopen(request, timeout=20))
        self.token = {"accessToken": answer["access_token"], "tokenType": answer["token_type"], "expiresAt": str(answer["expires"])}
        return {}

    def products(self, arguments):
        # YOUR SDK (3 of 3): an API call with the stored token.
        request = urllib.request.Request(self.base_url + "/v1/products", headers={"Authorization": "Bearer " + self.token.get("accessToken", "")})
        products = json.load(urllib.request.urlopen(request, timeout=20))["result"]
        return {"productCount": str(len(products)), "productIds": ",".join(p["id"] for p in products), "productTitles": ",".join(p["title"] for p in products)}


def error_kind(error):
    """The protocol's error kinds for what the SDK threw (docs/protocol.md, "call")."""
    if isinstance(error, urllib.error.HTTPError):
        return "tokenEndpoint" if "/oauth/" in error.url else "httpStatus"
    if isinstance(error, (urllib.error.URLError, OSError)):
        return "transport"
    return "invalidResponse"


def main():
    send({"type": "hello", "protocol": 1, "driver": {"name": "my-sdk-python", "version": "0.1.0"},
          "providers": {"moltin": ["auth", "products"]}, "capabilities": []})
    app = None
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "start":
            app = App(message)
            send({"type": "ready"})
        elif kind == "call":
            action = getattr(app, message["action"], None)
            if action is None:
                send({"type": "unsupported", "id": message["id"], "message": "no action " + message["action"]})
                continue
            try:
                send({"type": "ok", "id": message["id"], "result": action(message["arguments"])})
            except Exception as error:  # the SDK's error, as the app would see it
                send({"type": "error", "id": message["id"], "kind": error_kind(error), "message": str(error)})
        elif kind == "store":
            send({"type": "store", "id": message["id"], "fields": app.token if app else {}})
        elif kind == "stop":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
