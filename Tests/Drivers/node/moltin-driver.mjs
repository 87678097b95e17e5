#!/usr/bin/env node
// moltin-node: a FlowCheck driver (docs/protocol.md) around a small Moltin client.
//
// Node 20, built-in fetch and node: modules only. The client is this file's own: the
// client_credentials and refresh_token grants, products with a Bearer token, renewal 60 s
// before expiry on an injected (virtual) clock, one shared renewal (one promise) for concurrent
// callers, a bounded recovery from "Access token is not valid", a 30 s request timeout on the
// injected clock (an AbortController aborted by the clock), and a file token store (0600,
// write-temp + fsync + rename).
//
// stdout carries protocol lines only; console.log/info/warn/debug are pointed at stderr.
// The broken variants (broken-no-expiry.mjs, broken-crash.mjs) subclass MoltinClient and
// override one method; nothing in this file switches on a defect.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { pathToFileURL } from 'node:url';

const DRIVER_VERSION = '1.0.0';

for (const name of ['log', 'info', 'warn', 'debug']) console[name] = console.error;
const log = (...parts) => console.error('[moltin-node]', ...parts);

// ---------------------------------------------------------------------------------------------
// The client
// ---------------------------------------------------------------------------------------------

export class ClientError extends Error {
  constructor(kind, message, status) {
    super(message);
    this.kind = kind;
    this.status = status;
  }
}

/** The time the SDK reads, moved by the app (start/clock messages); deadlines fire when passed. */
export class VirtualClock {
  constructor(now) {
    this.current = Number(now);
    this.deadlines = new Map();
    this.next = 0;
  }
  now() { return this.current; }
  set(now) {
    this.current = Math.max(this.current, Number(now));
    for (const [key, { at, callback }] of [...this.deadlines]) {
      if (at <= this.current) {
        this.deadlines.delete(key);
        try { callback(); } catch (error) { log('deadline callback failed:', error); }
      }
    }
  }
  addDeadline(at, callback) {
    const key = ++this.next;
    if (at <= this.current) callback();
    else this.deadlines.set(key, { at, callback });
    return key;
  }
  cancel(key) { this.deadlines.delete(key); }
}

/** fetch with a timeout on the injected clock, a real-time safety timeout, and no redirects. */
export class HTTPTransport {
  static REQUEST_TIMEOUT = 30; // seconds on the injected clock
  static REAL_TIMEOUT_MS = 15000; // wall time, below the runner's 20 s answer deadline

  constructor(clock) { this.clock = clock; }

  async send(method, url, headers = {}, body = undefined) {
    const virtual = new AbortController();
    // Registered before the request is sent: a clock message past it aborts the exchange.
    const deadline = this.clock.addDeadline(this.clock.now() + HTTPTransport.REQUEST_TIMEOUT, () => virtual.abort(new ClientError('transport', `The request timed out after ${HTTPTransport.REQUEST_TIMEOUT} seconds`)));
    const real = AbortSignal.timeout(HTTPTransport.REAL_TIMEOUT_MS);
    const signal = AbortSignal.any([virtual.signal, real]);
    try {
      const response = await fetch(url, { method, headers, body, redirect: 'manual', signal, cache: 'no-store' });
      const data = Buffer.from(await response.arrayBuffer()); // a reset mid-body fails here
      return { status: response.status, headers: response.headers, body: data };
    } catch (error) {
      if (virtual.signal.aborted) throw virtual.signal.reason;
      if (real.aborted) throw new ClientError('transport', `The request timed out (no answer in ${HTTPTransport.REAL_TIMEOUT_MS / 1000} s of real time)`);
      const cause = error?.cause?.code || error?.cause?.message || error?.message || String(error);
      throw new ClientError('transport', `Network failure: ${cause}`);
    } finally {
      this.clock.cancel(deadline);
    }
  }
}

/** The token in one JSON file; owner-only; every write is a temp file fsynced and renamed over. */
export class TokenStore {
  static FILE_NAME = 'token.json';

  constructor(directory) {
    this.directory = directory;
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
    fs.chmodSync(directory, 0o700);
    this.file = path.join(directory, TokenStore.FILE_NAME);
    this.crashNextWrite = false;
  }

  armCrash() { this.crashNextWrite = true; }

  load() {
    let text;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (error) {
      if (error.code === 'ENOENT') return null;
      throw new ClientError('storage', `The token store cannot be read: ${error.message}`);
    }
    let value;
    try { value = JSON.parse(text); } catch { throw new ClientError('storage', 'The token store holds no valid token'); }
    if (value === null || typeof value !== 'object' || typeof value.accessToken !== 'string') {
      throw new ClientError('storage', 'The token store holds no valid token');
    }
    return Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v === 'string'));
  }

  save(fields) {
    const crash = this.crashNextWrite;
    this.crashNextWrite = false;
    const temporary = path.join(this.directory, `.token.${randomBytes(6).toString('hex')}.tmp`);
    let fd;
    try {
      fd = fs.openSync(temporary, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
      fs.fchmodSync(fd, 0o600);
      fs.writeSync(fd, JSON.stringify(fields));
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      fd = undefined;
    } catch (error) {
      if (fd !== undefined) try { fs.closeSync(fd); } catch { /* already failing */ }
      try { fs.unlinkSync(temporary); } catch { /* nothing to remove */ }
      throw new ClientError('storage', `The token cannot be stored: ${error.message}`);
    }
    if (crash) {
      // The simulated crash: data on disk, never renamed, nothing cleans up.
      throw new ClientError('storage', "The token store's write was interrupted before it was committed");
    }
    try {
      fs.renameSync(temporary, this.file);
      this.syncDirectory();
    } catch (error) {
      try { fs.unlinkSync(temporary); } catch { /* nothing to remove */ }
      throw new ClientError('storage', `The token cannot be stored: ${error.message}`);
    }
  }

  delete() {
    // The temporary files of writes that died before their rename hold token bytes too: once
    // the store is empty, nothing of a token stays in its folder.
    for (const name of fs.readdirSync(this.directory)) {
      if (name.startsWith('.token.') && name.endsWith('.tmp')) {
        try { fs.unlinkSync(path.join(this.directory, name)); } catch { /* gone already */ }
      }
    }
    try {
      fs.unlinkSync(this.file);
    } catch (error) {
      if (error.code === 'ENOENT') { this.syncDirectory(); return; }
      throw new ClientError('storage', `The token cannot be deleted: ${error.message}`);
    }
    this.syncDirectory();
  }

  files() { return fs.existsSync(this.file) ? [TokenStore.FILE_NAME] : []; }

  syncDirectory() {
    const fd = fs.openSync(this.directory, 'r');
    try { fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
  }
}

const STATUS_TEXT = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout' };

function serverMessage(body, status) {
  let document;
  try { document = JSON.parse(body.toString('utf8')); } catch { document = undefined; }
  if (document && typeof document === 'object') {
    // Seed 003's authErrorMessage reads the text under "error" or "errors".
    for (const key of ['error_description', 'error', 'errors', 'message']) {
      let value = document[key];
      if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string')) value = value.join('; ');
      if (typeof value === 'string' && value) return `${value} (HTTP ${status})`;
    }
  }
  return `HTTP ${status} ${STATUS_TEXT[status] ?? ''}`.trim();
}

/** A Moltin API client. Credentials live in memory only; the token lives in the store. */
export class MoltinClient {
  static RENEWAL_MARGIN = 60; // seconds before expiry at which the token is renewed first
  static DEFAULT_LIFETIME = 3600; // seed 003: tokens last an hour

  constructor(baseURL, clock, store, transport = new HTTPTransport(clock)) {
    this.generation = 0; // bumped by every change of the stored token (auth, refresh, delete)
    this.baseURL = baseURL.replace(/\/+$/, '');
    this.clock = clock;
    this.store = store;
    this.transport = transport;
    this.credentials = null; // {id, secret} of the last successful auth
    this.renewal = null; // the promise of the renewal in flight, shared by every caller
    try {
      this.token = store.load();
    } catch (error) {
      log('ignoring an unreadable store at launch:', error.message);
      this.token = null;
    }
  }

  // -- app actions -------------------------------------------------------------------------

  async auth(id, secret) {
    const started = this.generation;
    const token = await this.grant({ grant_type: 'client_credentials', client_id: id, client_secret: secret });
    this.keepUnlessChanged(token, started);
    this.credentials = { id, secret };
  }

  async refreshToken() {
    if (!this.token || !this.credentials) throw new ClientError('notLoggedIn', 'There is no token and credentials to refresh');
    const started = this.generation;
    this.keepUnlessChanged(await this.refresh(this.token, this.credentials), started);
  }

  deleteToken() {
    this.token = null;
    this.generation += 1;
    this.store.delete();
  }

  async products() {
    let token = await this.usableToken();
    let response = await this.getProducts(token);
    if (response.status === 401 && token && this.credentials) {
      token = await this.renew(token);
      response = await this.getProducts(token);
    }
    if (response.status === 401) throw new ClientError('tokenRejected', serverMessage(response.body, 401), 401);
    if (response.status !== 200) throw this.apiError(response.status, response.body);
    return this.parseProducts(response.body);
  }

  // -- overridable pieces (the broken variants replace exactly one) ------------------------

  /** Whether the token is too close to its expiry (or past it) to be sent. */
  needsRenewal(token) {
    const expiresAt = Number(token.expiresAt);
    if (!Number.isFinite(expiresAt)) return true;
    return this.clock.now() >= expiresAt - MoltinClient.RENEWAL_MARGIN;
  }

  parseProducts(body) {
    let document;
    try { document = JSON.parse(body.toString('utf8')); } catch { throw new ClientError('invalidResponse', 'The products answer is not JSON'); }
    const items = document && typeof document === 'object' ? document.result : undefined;
    if (!Array.isArray(items)) throw new ClientError('invalidResponse', 'The products answer has no result list');
    return items.map((item) => {
      if (!item || typeof item.id !== 'string' || typeof item.title !== 'string') {
        throw new ClientError('invalidResponse', 'A product in the answer has no id or title');
      }
      return { id: item.id, title: item.title };
    });
  }

  // -- tokens ------------------------------------------------------------------------------

  async usableToken() {
    const token = this.token;
    if (!token || !this.needsRenewal(token)) return token;
    if (!this.credentials) throw new ClientError('notLoggedIn', 'The token has expired and there are no credentials to renew it');
    return this.renew(token);
  }

  /** One renewal shared by every caller that found `stale` unusable. */
  renew(stale) {
    const current = this.token;
    if (current && current.accessToken !== stale.accessToken && !this.needsRenewal(current)) return Promise.resolve(current);
    if (!this.credentials) return Promise.reject(new ClientError('notLoggedIn', 'There are no credentials to renew the token'));
    if (!this.renewal) {
      const credentials = this.credentials;
      const started = this.generation;
      this.renewal = (async () => {
        let token;
        try {
          token = await this.refresh(stale, credentials);
        } catch (error) {
          if (!(error instanceof ClientError) || error.kind !== 'tokenEndpoint') throw error; // no verdict on the grant
          log(`refresh refused (${error.message}); falling back to client credentials`);
          token = await this.grant({ grant_type: 'client_credentials', client_id: credentials.id, client_secret: credentials.secret });
        }
        this.keepUnlessChanged(token, started);
        return token;
      })().finally(() => { this.renewal = null; });
    }
    return this.renewal;
  }

  refresh(token, credentials) {
    return this.grant({ grant_type: 'refresh_token', client_id: credentials.id, client_secret: credentials.secret, refresh_token: token.accessToken });
  }

  /** Keeps `token` only if nothing changed the stored token since `started`: a Delete Token
   * while the request was in flight must not be undone by its answer. */
  keepUnlessChanged(token, started) {
    if (this.generation !== started) {
      throw new ClientError('notLoggedIn', 'The token was deleted or replaced while the request was under way; nothing was stored');
    }
    this.generation += 1;
    this.keep(token);
  }

  keep(token) {
    this.store.save(token); // a storage error leaves memory as it was
    this.token = token;
  }

  async grant(form) {
    const response = await this.transport.send('POST', `${this.baseURL}/oauth/access_token`, {
      'Content-Type': 'application/x-www-form-urlencoded',
      Accept: 'application/json',
    }, new URLSearchParams(form).toString());
    if (response.status !== 200) {
      if ([400, 401, 403].includes(response.status)) throw new ClientError('tokenEndpoint', serverMessage(response.body, response.status), response.status);
      throw this.apiError(response.status, response.body);
    }
    let document;
    try { document = JSON.parse(response.body.toString('utf8')); } catch { throw new ClientError('invalidResponse', 'The token answer is not JSON'); }
    if (!document || typeof document.access_token !== 'string' || !document.access_token) {
      throw new ClientError('invalidResponse', 'The token answer has no access_token');
    }
    let expires = document.expires;
    if (typeof expires !== 'number') {
      // RFC 6749 §5.1: without expires_in the server's documented default holds, and seed 003
      // documents it: tokens last an hour.
      expires = this.clock.now() + (typeof document.expires_in === 'number' ? document.expires_in : MoltinClient.DEFAULT_LIFETIME);
    }
    const tokenType = typeof document.token_type === 'string' ? document.token_type : 'Bearer';
    return { accessToken: document.access_token, tokenType, expiresAt: String(Math.trunc(expires)) };
  }

  // -- API ---------------------------------------------------------------------------------

  getProducts(token) {
    const headers = { Accept: 'application/json' };
    if (token) headers.Authorization = `Bearer ${token.accessToken}`;
    return this.transport.send('GET', `${this.baseURL}/v1/products`, headers);
  }

  apiError(status, body) {
    if (status >= 300 && status < 400) return new ClientError('invalidResponse', `Unexpected redirect (HTTP ${status})`, status);
    if (status >= 500) return new ClientError('serverError', serverMessage(body, status), status);
    return new ClientError('httpStatus', serverMessage(body, status), status);
  }
}

// ---------------------------------------------------------------------------------------------
// The driver: the protocol
// ---------------------------------------------------------------------------------------------

export class Driver {
  constructor(ClientClass, name = 'moltin-node') {
    this.ClientClass = ClientClass;
    this.name = name;
    this.client = null;
  }

  send(message) {
    // Pipes are synchronous for process.stdout on Linux: one write is one whole line.
    process.stdout.write(JSON.stringify(message) + '\n');
  }

  async run() {
    this.send({
      type: 'hello', protocol: 1,
      driver: { name: this.name, version: DRIVER_VERSION },
      providers: { moltin: ['auth', 'refreshToken', 'deleteToken', 'products', 'relaunch'] },
      capabilities: ['virtualClock', 'fileStore', 'storeCrash'],
    });
    const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
    for await (const raw of lines) {
      const line = raw.trim();
      if (!line) continue;
      let message;
      try {
        message = JSON.parse(line);
        if (!message || typeof message.type !== 'string') throw new Error('no type');
      } catch {
        this.send({ type: 'fatal', message: `not a protocol message: ${line.slice(0, 200)}` });
        return 1;
      }
      if (message.type === 'stop') return 0;
      try {
        this.handle(message);
      } catch (error) {
        log(error);
        this.send({ type: 'fatal', message: `driver failure on ${message.type}: ${error.message}` });
        return 1;
      }
    }
    log('stdin closed without stop');
    return 0;
  }

  handle(message) {
    switch (message.type) {
      case 'start':
        if (message.provider !== 'moltin') {
          this.send({ type: 'fatal', message: `moltin-node speaks moltin only, not ${message.provider}` });
          return;
        }
        this.clock = new VirtualClock(message.now);
        this.baseURL = message.baseURL;
        this.store = new TokenStore(message.storageDirectory);
        this.client = new this.ClientClass(this.baseURL, this.clock, this.store);
        this.send({ type: 'ready' });
        return;
      case 'clock':
        this.clock.set(message.now);
        return;
      case 'call':
        this.call(message); // not awaited: calls run concurrently
        return;
      case 'store': {
        let fields;
        try { fields = this.store.load() ?? {}; } catch (error) { log('store unreadable:', error.message); fields = {}; }
        this.send({ type: 'store', id: message.id, fields });
        return;
      }
      case 'storeLocation':
        this.send({ type: 'storeLocation', id: message.id, directory: this.store.directory, files: this.store.files() });
        return;
      case 'crashStore':
        this.store.armCrash();
        this.send({ type: 'crashStore', id: message.id, armed: true });
        return;
      default:
        log('ignoring an unknown message type:', message.type);
    }
  }

  async call(message) {
    const { id, action } = message;
    const args = message.arguments ?? {};
    try {
      const result = await this.perform(action, args);
      if (result === null) this.send({ type: 'unsupported', id, message: `moltin-node has no action ${JSON.stringify(action)}` });
      else this.send({ type: 'ok', id, result });
    } catch (error) {
      if (error instanceof ClientError) {
        this.send({ type: 'error', id, kind: error.kind, message: error.message });
      } else { // the SDK would have crashed the app
        log(`crash in ${action}:`, error);
        this.send({ type: 'crashed', id, message: `${error?.name ?? 'Error'}: ${error?.message ?? String(error)} in ${action}` });
      }
    }
  }

  async perform(action, args) {
    const client = this.client;
    switch (action) {
      case 'auth': await client.auth(args.clientId ?? '', args.clientSecret ?? ''); return {};
      case 'refreshToken': await client.refreshToken(); return {};
      case 'deleteToken': client.deleteToken(); return {};
      case 'products': {
        const products = await client.products();
        return {
          productCount: String(products.length),
          productIds: products.map((p) => p.id).join(','),
          productTitles: products.map((p) => p.title).join(','),
        };
      }
      case 'relaunch':
        // A new app process: a new client over the same store; memory (credentials) lost.
        this.client = new this.ClientClass(this.baseURL, this.clock, this.store);
        return {};
      default:
        return null;
    }
  }
}

export async function main(ClientClass = MoltinClient, name = 'moltin-node') {
  process.on('uncaughtException', (error) => log('uncaught exception (kept running):', error));
  process.on('unhandledRejection', (error) => log('unhandled rejection (kept running):', error));
  const code = await new Driver(ClientClass, name).run();
  process.exit(code); // calls still in flight end with the process
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) main();
