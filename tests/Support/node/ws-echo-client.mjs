// Drives a WebSocket echo server with the npm ws package, an implementation independent of
// Nexus: text, binary, fragmented, UTF-8 split across fragments, permessage-deflate (whole and
// fragmented), ping/pong and the close handshake. Prints one JSON line per check and exits 1
// if any failed.
//   node ws-echo-client.mjs ws://127.0.0.1:PORT/
import WebSocket from 'ws';

const url = process.argv[2];
const results = [];
let failed = false;

function check(name, ok, detail = '') {
  results.push({ name, ok, detail });
  if (!ok) failed = true;
  process.stdout.write(JSON.stringify({ name, ok, detail }) + '\n');
}

function open(options) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, options);
    const queue = [];
    const waiters = [];
    ws.on('message', (data, isBinary) => {
      const item = { data: Buffer.from(data), isBinary };
      const waiter = waiters.shift();
      if (waiter) waiter(item); else queue.push(item);
    });
    ws.next = () => new Promise((res) => {
      const item = queue.shift();
      if (item) res(item); else waiters.push(res);
    });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function withTimeout(promise, ms, what) {
  return Promise.race([
    promise,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms)),
  ]);
}

async function echo(ws, name, data, sendOptions, expected, expectBinary) {
  ws.send(data, sendOptions);
  const { data: got, isBinary } = await withTimeout(ws.next(), 10000, name);
  const want = Buffer.isBuffer(expected) ? expected : Buffer.from(expected);
  check(name, got.equals(want) && isBinary === expectBinary, `got ${got.length} bytes, binary=${isBinary}`);
}

async function main() {
  const ws = await withTimeout(open({ perMessageDeflate: true }), 10000, 'open with permessage-deflate');
  check('permessage-deflate negotiated', ws.extensions.includes('permessage-deflate'), ws.extensions);

  await echo(ws, 'text', 'hello', {}, 'hello', false);
  await echo(ws, 'unicode text', 'héllo wörld 😀', {}, 'héllo wörld 😀', false);
  const bytes = Buffer.alloc(1000);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7) & 0xff;
  await echo(ws, 'binary', bytes, { binary: true }, bytes, true);
  const big = 'compress me please '.repeat(10000);
  await echo(ws, 'large compressed text', big, { compress: true }, big, false);
  const bigBinary = Buffer.alloc(300000, 0x41);
  await echo(ws, 'large compressed binary', bigBinary, { binary: true, compress: true }, bigBinary, true);

  // Fragmented text, one message in three frames.
  ws.send('frag1-', { fin: false });
  ws.send('frag2-', { fin: false });
  await echo(ws, 'fragmented text', 'frag3', { fin: true }, 'frag1-frag2-frag3', false);

  // UTF-8 cut inside a character across fragments.
  const utf = Buffer.from('a😀b€c');
  ws.send(utf.subarray(0, 3), { fin: false, binary: false, compress: false });
  ws.send(utf.subarray(3, 7), { fin: false, binary: false, compress: false });
  await echo(ws, 'UTF-8 split across fragments', utf.subarray(7), { fin: true, binary: false, compress: false }, utf, false);

  // Fragmented and compressed: RSV1 on the first frame only, one deflate stream over all.
  const part = 'fragmented and compressed '.repeat(500);
  ws.send(part, { fin: false, compress: true });
  ws.send(part, { fin: false, compress: true });
  await echo(ws, 'fragmented compressed text', part, { fin: true, compress: true }, part.repeat(3), false);

  // Many messages in a row come back in order.
  for (let i = 0; i < 200; i++) ws.send(`n${i}`);
  let inOrder = true;
  for (let i = 0; i < 200; i++) {
    const { data } = await withTimeout(ws.next(), 10000, 'message burst');
    if (data.toString() !== `n${i}`) inOrder = false;
  }
  check('200 messages in order', inOrder);

  const pong = new Promise((resolve) => ws.once('pong', (data) => resolve(data.toString())));
  ws.ping('are you there');
  check('ping answered with the same payload', (await withTimeout(pong, 10000, 'pong')) === 'are you there');

  const closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve([code, reason.toString()])));
  ws.close(4000, 'done');
  const [code] = await withTimeout(closed, 10000, 'close');
  check('close handshake echoes the code', code === 4000, `code ${code}`);

  // Without compression, a large binary message.
  const plain = await withTimeout(open({ perMessageDeflate: false }), 10000, 'open without compression');
  check('no extension without an offer', plain.extensions === '', plain.extensions);
  const random = Buffer.alloc(70000);
  for (let i = 0; i < random.length; i++) random[i] = (i * 31 + 7) & 0xff;
  await echo(plain, 'uncompressed 70000-byte binary', random, { binary: true }, random, true);
  const plainClosed = new Promise((resolve) => plain.once('close', (c) => resolve(c)));
  plain.close(1000);
  check('normal close', (await withTimeout(plainClosed, 10000, 'close')) === 1000);
}

main().then(
  () => process.exit(failed ? 1 : 0),
  (error) => {
    check('run', false, String(error && error.stack || error));
    process.exit(1);
  },
);
