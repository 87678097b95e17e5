#!/usr/bin/env python3
"""moltin-python, conforming: renews 5 minutes before expiry instead of 60 seconds.

The one change: RENEWAL_MARGIN. Seed 003 fixes no margin ("If the expiry time is reached, an
auth or refresh request should be made before any other request"); renewing earlier still never
sends an expired token. Every Moltin flow must pass.
"""

import sys

sys.dont_write_bytecode = True  # keep Tests/Drivers free of __pycache__

from moltin_driver import MoltinClient, main


class EarlyRenewalMoltinClient(MoltinClient):
    RENEWAL_MARGIN = 300


if __name__ == "__main__":
    main(EarlyRenewalMoltinClient, name="moltin-python-conforming-margin-300")
