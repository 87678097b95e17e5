#!/usr/bin/env python3
"""moltin-python, conforming: the token file is left read-only to its owner (0400).

The one change: after each save the file is made 0400, as stores that protect a file from
their own accidental writes do. Still readable by its owner only (RFC 6819 5.3.3), and still
replaced by a rename (a rename needs the folder's write bit, not the file's). Every Moltin flow
must pass.
"""

import os
import sys

sys.dont_write_bytecode = True  # keep Tests/Drivers free of __pycache__

from moltin_driver import MoltinClient, main


class ReadOnlyFileMoltinClient(MoltinClient):
    def _keep(self, token):
        super()._keep(token)
        os.chmod(self.store.path, 0o400)


if __name__ == "__main__":
    main(ReadOnlyFileMoltinClient, name="moltin-python-conforming-owner-read-only")
