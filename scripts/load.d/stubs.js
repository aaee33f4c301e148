// Loopback stand-ins for scripts/load. Usage: node stubs.js seller|valet-empty|valet-silent
// Listens on a free 127.0.0.1 port, prints that port on one stdout line, serves until killed.
//   seller        every GET: 402, an x402 v1 JSON body and a PAYMENT-REQUIRED header (base64
//                 of the v2 challenge), the shape `payability demo`'s seller serves (POPULATED)
//   valet-empty   every GET: 200 {"observations": []} (Bank of Canada Valet, no rate published)
//   valet-silent  accepts connections and never answers (nor closes them)
'use strict';
const http = require('http');
const net = require('net');

const mode = process.argv[2];

const PAY_TO = '7dKV4qUPAHnvbpFKnFuzvdPLSkVx6dqbvWxD3yyqfyHh';
const FEE_PAYER = '2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4';
const TOKEN_ACCOUNT = 'BKXnNjWEvQpqgJSTBZ2JrMi3r6hbVEdCMzSbTqEEHPao';
const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

function sellerChallenge(port) {
  const resource = `http://127.0.0.1:${port}/item`;
  const description = 'Load-test seller: one sample item';
  const extra = {
    feePayer: FEE_PAYER,
    usdc_token_account: TOKEN_ACCOUNT,
    memo: 'pvm_00112233445566778899aabbccddeeff',
  };
  const body = JSON.stringify({
    x402Version: 1,
    error: 'payment required',
    accepts: [{
      scheme: 'exact', network: 'solana', maxAmountRequired: '10000', amount: '10000',
      resource, description, mimeType: 'application/json', payTo: PAY_TO,
      maxTimeoutSeconds: 60, asset: USDC_MINT, extra,
    }],
  });
  const header = Buffer.from(JSON.stringify({
    x402Version: 2,
    error: 'payment required',
    resource: { url: resource, description, mimeType: 'application/json' },
    accepts: [{
      scheme: 'exact', network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', amount: '10000',
      asset: USDC_MINT, payTo: PAY_TO, maxTimeoutSeconds: 60, extra,
    }],
  })).toString('base64');
  return { body: Buffer.from(body), header };
}

function announce(server) {
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
}

// Answers fixed bytes to every request (the request body, if any, is drained and ignored).
function fixedHttp(status, headers, bodyOf) {
  let body = null;
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(status, { ...headers, 'content-length': body.length });
    res.end(body);
  });
  server.keepAliveTimeout = 5000;
  server.on('listening', () => { body = bodyOf(server.address().port); });
  return server;
}

let server;
switch (mode) {
  case 'seller': {
    let challenge = null;
    server = fixedHttp(402, { 'content-type': 'application/json' }, (port) => {
      challenge = sellerChallenge(port);
      return challenge.body;
    });
    // PAYMENT-REQUIRED is added per response once the port (and so the resource URL) is known.
    server.prependListener('request', (req, res) => {
      res.setHeader('payment-required', challenge.header);
    });
    break;
  }
  case 'valet-empty':
    server = fixedHttp(200, { 'content-type': 'application/json' },
      () => Buffer.from('{"observations": []}'));
    break;
  case 'valet-silent': {
    const held = new Set();
    server = net.createServer((socket) => {
      held.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => held.delete(socket));
      socket.resume();
    });
    break;
  }
  default:
    process.stderr.write('usage: node stubs.js seller|valet-empty|valet-silent\n');
    process.exit(2);
}
server.on('error', (e) => { process.stderr.write(`stubs.js ${mode}: ${e.message}\n`); process.exit(1); });
announce(server);
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
