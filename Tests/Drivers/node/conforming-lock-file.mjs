#!/usr/bin/env node
// moltin-node, conforming: the store keeps an empty lock file (0600) beside the token file.
// The one change: keep() makes sure of `.lock` before it writes, as stores shared between an
// app and its extensions do. The store's guarantees hold (owner-only, replaced by a rename, no
// copy of a token left behind); the lock file is layout. Every Moltin flow must pass.
import fs from 'node:fs';
import path from 'node:path';
import { MoltinClient, main } from './moltin-driver.mjs';

class LockFileMoltinClient extends MoltinClient {
  keep(token) {
    fs.closeSync(fs.openSync(path.join(this.store.directory, '.lock'), 'a', 0o600));
    super.keep(token);
  }
}

main(LockFileMoltinClient, 'moltin-node-conforming-lock-file');
