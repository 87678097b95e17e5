#!/usr/bin/env node
// A FlowCheck driver skeleton in Node: Node 20, its built-in fetch and node: modules only.
//
// It speaks the driver protocol (docs/protocol.md; every action's arguments and results:
// docs/protocol-actions.md) for Moltin's `auth` and `products`, with a client of its own
// standing in for your SDK: replace the five places marked YOUR SDK with calls into your SDK.
// As it stands it passes MLT-AUTH (its answer variants too), MLT-BADAUTH and MLT-NETFAIL:
//
//     swift build --product flowcheck
//     .build/debug/flowcheck --driver 'node examples/drivers/node/driver.mjs' --filter '^MLT-AUTH$' --no-derived specs/
//
// Every line on stdout is a protocol message; log to stderr (console.error).

import readline from 'node:readline';

// An SDK that logs with console.log would write into the protocol: point it at stderr.
for (const name of ['log', 'info', 'warn', 'debug']) console[name] = console.error;

// The App methods the runner may call: the hello names them, and only they are called.
const ACTIONS = ['auth', 'products'];

function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

const MOLTIN_TOKEN_LIFETIME = 3600; // seed 003: a token answer that names no expiry lasts an hour

/** What a flow runs: one per `start`. YOUR SDK goes here (1 of 5): build it in the constructor. */
class App {
  constructor(start) {
    this.baseURL = start.baseURL;
    this.now = start.now; // the flow's clock, Unix seconds: the fake issues tokens on it
    this.token = {}; // the token store: {accessToken, tokenType, expiresAt}
  }

  async auth(args) {
    // YOUR SDK (2 of 5): its login with client credentials.
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: args.clientId, client_secret: args.clientSecret });
    const answer = await getJSON(this.baseURL + '/oauth/access_token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    // JavaScript reads a missing field as undefined: check, or "undefined" would be stored.
    if (typeof answer?.access_token !== 'string') throw new SDKError('invalidResponse', 'the token answer has no access_token');
    // Moltin's `expires` is a time on the flow's clock; an RFC 6749 answer may give only
    // `expires_in` (seconds from now, on the same clock), or neither (Moltin's hour holds).
    const expires = typeof answer.expires === 'number' ? answer.expires
      : this.now + (typeof answer.expires_in === 'number' ? answer.expires_in : MOLTIN_TOKEN_LIFETIME);
    this.token = { accessToken: answer.access_token, tokenType: answer.token_type ?? 'Bearer', expiresAt: String(Math.trunc(expires)) };
    return {};
  }

  async products() {
    // YOUR SDK (3 of 5): an API call with the stored token.
    const products = (await getJSON(this.baseURL + '/v1/products', { headers: { Authorization: 'Bearer ' + (this.token.accessToken ?? '') } }))?.result;
    if (!Array.isArray(products) || !products.every((p) => typeof p?.id === 'string' && typeof p?.title === 'string')) throw new SDKError('invalidResponse', 'the products answer has no result list');
    return { productCount: String(products.length), productIds: products.map((p) => p.id).join(','), productTitles: products.map((p) => p.title).join(',') };
  }

  /** YOUR SDK (4 of 5): what your SDK's token store holds now, in Moltin's field names. */
  stored() {
    return this.token;
  }
}

// The stand-in client's errors. Telling these failures apart is your SDK's job; the kinds and
// messages are the ones the protocol asks for (docs/protocol.md, "Error kinds").

class SDKError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

/** The answer's JSON, or an SDKError of the protocol's kind. */
async function getJSON(url, init) {
  let response, text;
  try {
    // 15 s of real time, below the runner's 20 s deadline for an answer: an error, not a hang.
    response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(15000) });
    text = await response.text();
  } catch (error) { // refused, reset, timed out: fetch's TypeError and TimeoutError
    throw new SDKError('transport', error.cause?.message ?? error.message);
  }
  if (response.status < 200 || response.status > 299) {
    const message = serverMessage(text) ?? `HTTP ${response.status}`;
    if (response.status >= 500) throw new SDKError('serverError', message);
    if ([400, 401, 403].includes(response.status) && url.includes('/oauth/')) throw new SDKError('tokenEndpoint', message); // its own words
    throw new SDKError('httpStatus', message);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new SDKError('invalidResponse', 'the answer is not JSON');
  }
}

/** The server's own text: Moltin answers {"status": false, "error": "..."}. */
function serverMessage(text) {
  let document;
  try {
    document = JSON.parse(text);
  } catch {
    return undefined;
  }
  const key = ['error_description', 'error', 'errors', 'message'].find((name) => typeof document?.[name] === 'string' && document[name] !== '');
  return key && document[key];
}

/** YOUR SDK (5 of 5): your SDK's errors as the protocol's kinds, with the message it gives the app. */
function errorAnswer(id, error) {
  if (error instanceof SDKError) return { type: 'error', id, kind: error.kind, message: error.message };
  return { type: 'crashed', id, message: String(error) }; // uncaught: the app would crash
}

async function call(app, message) {
  if (!app || !ACTIONS.includes(message.action)) {
    send({ type: 'unsupported', id: message.id, message: 'no action ' + message.action });
    return;
  }
  try {
    send({ type: 'ok', id: message.id, result: await app[message.action](message.arguments) });
  } catch (error) { // the SDK's error, as the app would see it
    send(errorAnswer(message.id, error));
  }
}

send({ type: 'hello', protocol: 1, driver: { name: 'my-sdk-node', version: '0.1.0' },
  providers: { moltin: ACTIONS }, capabilities: [] });
let app = null;
for await (const line of readline.createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  const message = JSON.parse(line);
  if (message.type === 'start') {
    app = new App(message);
    send({ type: 'ready' });
  } else if (message.type === 'call') {
    call(app, message); // not awaited: the runner may ask again while a call is in flight
  } else if (message.type === 'store') {
    send({ type: 'store', id: message.id, fields: app ? app.stored() : {} });
  } else if (message.type === 'clock' && app) {
    app.now = message.now;
  } else if (message.type === 'stop') {
    break;
  }
}
process.exit(0); // calls still in flight at stop need no answer
