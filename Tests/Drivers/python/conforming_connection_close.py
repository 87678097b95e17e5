#!/usr/bin/env python3
"""moltin-python, conforming: every request says Connection: close.

The one change: the header an HTTP stack without keep-alive sends. A client may close the
connection after each response (RFC 9112 9.6); nothing in the exchange changes. Every Moltin
flow must pass.
"""

import sys

sys.dont_write_bytecode = True  # keep Tests/Drivers free of __pycache__

from moltin_driver import HTTPTransport, MoltinClient, main


class ClosingTransport(HTTPTransport):
    def send(self, method, url, headers=None, body=None):
        return super().send(method, url, dict(headers or {}, Connection="close"), body)


class ClosingMoltinClient(MoltinClient):
    def __init__(self, base_url, clock, store, transport=None):
        super().__init__(base_url, clock, store, transport or ClosingTransport(clock))


if __name__ == "__main__":
    main(ClosingMoltinClient, name="moltin-python-conforming-connection-close")
