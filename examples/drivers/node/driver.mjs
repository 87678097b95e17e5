#!/usr/bin/env node
// A FlowCheck driver skeleton in Node: Node 20, its built-in fetch and node: modules only.
//
// It speaks the driver protocol (docs: Tests/Drivers/PROTOCOL.md) for Moltin's `auth` and
// `products`, with a client of its own standing in for your SDK: replace the three marked places
// with calls into your SDK, and it passes MLT-AUTH as it stands:
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

/** What a flow runs: one per `start`. YOUR SDK goes here (1 of 3): build it in the constructor. */
class App {
  constructor(start) {
    this.baseURL = start.baseURL;
    this.token = {}; // the token store: {accessToken, tokenType, expiresAt}
  }

  async auth(args) {
    // YOUR SDK (2 of 3): its login with client credentials.
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: args.clientId, client_secret: args.clientSecret });
    const answer = await getJSON(this.baseURL + '/oauth/access_token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    // JavaScript reads a missing field as undefined: check, or "undefined" would be stored.
    if (typeof answer.access_token !== 'string' || typeof answer.expires !== 'number') throw new Error('the token answer has no access_token or expires');
    this.token = { accessToken: answer.access_token, tokenType: answer.token_type, expiresAt: String(answer.expires) };
    return {};
  }

  async products() {
    // YOUR SDK (3 of 3): an API call with the stored token.
    const products = (await getJSON(this.baseURL + '/v1/products', { headers: { Authorization: 'Bearer ' + (this.token.accessToken ?? '') } })).result;
    return { productCount: String(products.length), productIds: products.map((p) => p.id).join(','), productTitles: products.map((p) => p.title).join(',') };
  }
}

/** The stand-in client's HTTP: an answer that is not 2xx throws with its status and URL. */
async function getJSON(url, init) {
  // 15 s of real time, below the runner's 20 s deadline for an answer: an error, not a hang.
  const response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(15000) });
  const text = await response.text();
  if (response.status < 200 || response.status > 299) throw Object.assign(new Error(`HTTP ${response.status}: ${text}`), { status: response.status, url });
  return JSON.parse(text);
}

/** The protocol's error kinds for what the SDK threw (PROTOCOL.md, "call"). */
function errorKind(error) {
  if (error.status !== undefined) return error.url.includes('/oauth/') ? 'tokenEndpoint' : 'httpStatus';
  if (error.name === 'TypeError' || error.name === 'TimeoutError') return 'transport'; // fetch's network failures
  return 'invalidResponse';
}

async function call(app, message) {
  if (!app || !ACTIONS.includes(message.action)) {
    send({ type: 'unsupported', id: message.id, message: 'no action ' + message.action });
    return;
  }
  try {
    send({ type: 'ok', id: message.id, result: await app[message.action](message.arguments) });
  } catch (error) { // the SDK's error, as the app would see it
    send({ type: 'error', id: message.id, kind: errorKind(error), message: String(error.message ?? error) });
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
    send({ type: 'store', id: message.id, fields: app ? app.token : {} });
  } else if (message.type === 'stop') {
    break;
  }
}
process.exit(0); // calls still in flight at stop need no answer
