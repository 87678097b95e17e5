#!/usr/bin/env python3
"""moltin-python, conforming: spaces in the form body sent as %20, not +.

The one change: the transport writes every + of an encoded form body (always a space: a literal
+ is %2B) as %20. A form decoder reads both as a space (WHATWG URL 5.1; RFC 3986 2.1), and
clients whose encoder is a URI-component encoder send %20. Every Moltin flow must pass.
"""

import sys

sys.dont_write_bytecode = True  # keep Tests/Drivers free of __pycache__

from moltin_driver import HTTPTransport, MoltinClient, main


class Percent20Transport(HTTPTransport):
    def send(self, method, url, headers=None, body=None):
        if body and (headers or {}).get("Content-Type", "").startswith("application/x-www-form-urlencoded"):
            body = body.replace(b"+", b"%20")
        return super().send(method, url, headers, body)


class Percent20MoltinClient(MoltinClient):
    def __init__(self, base_url, clock, store, transport=None):
        super().__init__(base_url, clock, store, transport or Percent20Transport(clock))


if __name__ == "__main__":
    main(Percent20MoltinClient, name="moltin-python-conforming-percent20")
