#!/usr/bin/env python3
"""moltin-python, conforming: Delete Token removes the store's folder itself.

The one change: the token lives directly in storageDirectory, as the reference driver keeps it,
and deleting it removes that whole folder (shutil.rmtree); the next save makes it again,
owner-only (0700). Nothing is left behind, which is all a delete owes (flows.md MLT-DELETE;
RFC 6819 §5.3.3). The harness measures a removed folder as an empty store. Every Moltin flow
must pass.
"""

import os
import shutil
import sys

sys.dont_write_bytecode = True  # keep Tests/Drivers free of __pycache__

import moltin_driver
from moltin_driver import MoltinClient, TokenStore, main


class FolderRemovingStore(TokenStore):
    def save(self, fields):
        os.makedirs(self.directory, mode=0o700, exist_ok=True)
        os.chmod(self.directory, 0o700)
        return super().save(fields)

    def load(self):
        if not os.path.isdir(self.directory):
            return None
        return super().load()

    def delete(self):
        with self._lock:
            shutil.rmtree(self.directory, ignore_errors=True)

    def files(self):
        return [self.FILE_NAME] if os.path.exists(self.path) else []


moltin_driver.TokenStore = FolderRemovingStore

if __name__ == "__main__":
    main(MoltinClient, name="moltin-python-conforming-store-folder-removed")
