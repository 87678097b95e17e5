#!/usr/bin/env python3
"""moltin-python, broken: never renews before expiry.

The one change: the expiry check is gone (needs_renewal always answers False), so the SDK sends
a token it knows has expired and only recovers after the server's 401, or, without
credentials, reports the 401 instead of "not logged in". A defect real SDKs ship when the
expiry from the token answer is parsed but never consulted.
"""

import sys

sys.dont_write_bytecode = True  # keep Tests/Drivers free of __pycache__

from moltin_driver import MoltinClient, main


class NoExpiryMoltinClient(MoltinClient):
    def needs_renewal(self, token):
        return False


if __name__ == "__main__":
    main(NoExpiryMoltinClient, name="moltin-python-broken-no-expiry")
