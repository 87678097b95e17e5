#!/usr/bin/env python3
"""A FlowCheck driver skeleton in Python: the standard library only.

It speaks the driver protocol (docs/protocol.md; every action's arguments and results:
docs/protocol-actions.md) for Moltin's `auth` and `products`, with a client of its own standing
in for your SDK: replace the five places marked YOUR SDK with calls into your SDK. As it stands
it passes MLT-AUTH (its answer variants too), MLT-BADAUTH and MLT-NETFAIL:

    swift build --product flowcheck
    .build/debug/flowcheck --driver 'python3 examples/drivers/python/driver.py' --filter '^MLT-AUTH$' --no-derived specs/

Every line on stdout is a protocol message; log to stderr.
"""
import json
import sys
import urllib.error
import urllib.parse
import urllib.request

MOLTIN_TOKEN_LIFETIME = 3600  # seed 003: a token answer that names no expiry lasts an hour
ACTIONS = ["auth", "products"]  # the App methods the runner may call: the hello names them


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


class App:
    """What a flow runs: one per `start`. YOUR SDK goes here (1 of 5): build it in __init__."""

    def __init__(self, start):
        self.base_url = start["baseURL"]
        self.now = start["now"]  # the flow's clock, Unix seconds: the fake issues tokens on it
        self.token = {}  # the token store: {"accessToken", "tokenType", "expiresAt"}

    def auth(self, arguments):
        # YOUR SDK (2 of 5): its login with client credentials.
        form = urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": arguments["clientId"], "client_secret": arguments["clientSecret"]})
        request = urllib.request.Request(self.base_url + "/oauth/access_token", data=form.encode(), headers={"Content-Type": "application/x-www-form-urlencoded"})
        answer = fetch_json(request)
        if not isinstance(answer, dict) or not isinstance(answer.get("access_token"), str):
            raise SDKError("invalidResponse", "the token answer has no access_token")
        # Moltin's `expires` is a time on the flow's clock; an RFC 6749 answer may give only
        # `expires_in` (seconds from now, on the same clock), or neither (Moltin's hour holds).
        expires = answer.get("expires")
        if not isinstance(expires, (int, float)):
            expires_in = answer.get("expires_in")
            expires = self.now + (expires_in if isinstance(expires_in, (int, float)) else MOLTIN_TOKEN_LIFETIME)
        self.token = {"accessToken": answer["access_token"], "tokenType": answer.get("token_type", "Bearer"), "expiresAt": str(int(expires))}
        return {}

    def products(self, arguments):
        # YOUR SDK (3 of 5): an API call with the stored token.
        request = urllib.request.Request(self.base_url + "/v1/products", headers={"Authorization": "Bearer " + self.token.get("accessToken", "")})
        answer = fetch_json(request)
        products = answer.get("result") if isinstance(answer, dict) else None
        if not isinstance(products, list) or not all(isinstance(p, dict) and "id" in p and "title" in p for p in products):
            raise SDKError("invalidResponse", "the products answer has no result list")
        return {"productCount": str(len(products)), "productIds": ",".join(p["id"] for p in products), "productTitles": ",".join(p["title"] for p in products)}

    def stored(self):
        """YOUR SDK (4 of 5): what your SDK's token store holds now, in Moltin's field names."""
        return self.token


# The stand-in client's errors. Telling these failures apart is your SDK's job; the kinds and
# messages are the ones the protocol asks for (docs/protocol.md, "Error kinds").

class SDKError(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


def fetch_json(request):
    """The answer's JSON, or an SDKError of the protocol's kind."""
    try:
        with urllib.request.urlopen(request, timeout=15) as response:  # 15 s: below the runner's 20 s for an answer
            body = response.read()
    except urllib.error.HTTPError as error:  # an answer that is not 2xx
        message = server_message(error.read()) or "HTTP %d" % error.code
        if error.code >= 500:
            raise SDKError("serverError", message)
        if error.code in (400, 401, 403) and "/oauth/" in request.full_url:
            raise SDKError("tokenEndpoint", message)  # the token endpoint refused: its own words
        raise SDKError("httpStatus", message)
    except OSError as error:  # refused, reset, timed out (urllib's URLError is one)
        raise SDKError("transport", str(error))
    try:
        return json.loads(body)
    except ValueError:
        raise SDKError("invalidResponse", "the answer is not JSON")


def server_message(body):
    """The server's own text: Moltin answers {"status": false, "error": "..."}."""
    try:
        document = json.loads(body)
    except ValueError:
        return None
    for key in ("error_description", "error", "errors", "message"):
        if isinstance(document, dict) and isinstance(document.get(key), str) and document[key]:
            return document[key]
    return None


def error_answer(call_id, error):
    """YOUR SDK (5 of 5): your SDK's errors as the protocol's kinds, with the message it gives the app."""
    if isinstance(error, SDKError):
        return {"type": "error", "id": call_id, "kind": error.kind, "message": str(error)}
    return {"type": "crashed", "id": call_id, "message": "%s: %s" % (type(error).__name__, error)}  # uncaught: the app would crash


def main():
    send({"type": "hello", "protocol": 1, "driver": {"name": "my-sdk-python", "version": "0.1.0"},
          "providers": {"moltin": ACTIONS}, "capabilities": []})
    app = None
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "start":
            app = App(message)
            send({"type": "ready"})
        elif kind == "call":
            if app is None or message["action"] not in ACTIONS:
                send({"type": "unsupported", "id": message["id"], "message": "no action " + message["action"]})
                continue
            try:
                send({"type": "ok", "id": message["id"], "result": getattr(app, message["action"])(message["arguments"])})
            except Exception as error:  # the SDK's error, as the app would see it
                send(error_answer(message["id"], error))
        elif kind == "store":
            send({"type": "store", "id": message["id"], "fields": app.stored() if app else {}})
        elif kind == "clock" and app:
            app.now = message["now"]
        elif kind == "stop":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
