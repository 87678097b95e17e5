#!/usr/bin/env python3
"""moltin-python, conforming: waits out a Retry-After of up to 5 minutes and asks once more.

The one change: a 429 or 503 that carries Retry-After (delay-seconds) is waited out on the
injected clock, through the protocol's `wait` message, and the request sent once more; the
second answer is final. A bearer token that expired during the wait is not sent again: the
first answer stands (seed 003: a token is renewed before it is used past its expiry;
MLT-RETRY-EXPIRY). RFC 9110 §10.2.3: Retry-After says how long the client ought to wait
before a follow-up request; RFC 6585 §4: a 429 may carry one. Giving up at once conforms too
(the reference driver does). Every Moltin flow must pass.
"""

import sys

sys.dont_write_bytecode = True  # keep Tests/Drivers free of __pycache__

from moltin_driver import HTTPTransport, MoltinClient, main

LIMIT = 300  # the longest Retry-After waited out, in seconds


class RetryAfterTransport(HTTPTransport):
    # Set by the client around a request that carries a token: when that token expires.
    expires_at = None

    def send(self, method, url, headers=None, body=None):
        status, response_headers, data = super().send(method, url, headers, body)
        value = response_headers.get("retry-after", "").strip()
        if status in (429, 503) and value.isdigit() and int(value) <= LIMIT:
            if self.clock.pause(self.clock.now() + int(value)):
                if self.expires_at is not None and self.clock.now() >= self.expires_at:
                    return status, response_headers, data
                return super().send(method, url, headers, body)
        return status, response_headers, data


class RetryAfterMoltinClient(MoltinClient):
    def __init__(self, base_url, clock, store, transport=None):
        super().__init__(base_url, clock, store, transport or RetryAfterTransport(clock))

    def _get_products(self, token):
        self.transport.expires_at = float(token["expiresAt"]) if token is not None else None
        try:
            return super()._get_products(token)
        finally:
            self.transport.expires_at = None


if __name__ == "__main__":
    main(RetryAfterMoltinClient, name="moltin-python-conforming-retry-after")
