// Drives the demo chat (GET /ws/chat/{room}) with the npm ws package: N browsers' worth of
// connections join one room, each sends one text message, and every connection must receive all
// N messages (its own included), in the same order as every other connection. Prints one JSON
// line per check and exits 1 if any failed.
//   node ws-chat-client.mjs ws://127.0.0.1:PORT/ws/chat/ROOM [N]
import WebSocket from 'ws';

const url = process.argv[2];
const count = Number(process.argv[3] || 6);
let failed = false;

function check(name, ok, detail = '') {
  if (!ok) failed = true;
  process.stdout.write(JSON.stringify({ name, ok, detail }) + '\n');
}

function withTimeout(promise, ms, what) {
  return Promise.race([
    promise,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms)),
  ]);
}

async function main() {
  const sockets = [];
  const received = [];
  for (let i = 0; i < count; i++) {
    const ws = new WebSocket(url, { perMessageDeflate: true });
    received.push([]);
    ws.on('message', (data, isBinary) => received[i].push(isBinary ? '(binary)' : data.toString()));
    sockets.push(ws);
  }
  await withTimeout(Promise.all(sockets.map((ws) => new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  }))), 10000, 'every connection opens');
  check('all connected', true, `${count} connections`);

  sockets.forEach((ws, i) => ws.send(`hello from ${i} ✓`));
  const everyoneHasAll = new Promise((resolve) => {
    const timer = setInterval(() => {
      if (received.every((messages) => messages.length >= count)) {
        clearInterval(timer);
        resolve();
      }
    }, 10);
  });
  try {
    await withTimeout(everyoneHasAll, 10000, 'every message reaches every connection');
    check('every connection got every message', true);
  } catch (error) {
    check('every connection got every message', false, received.map((m) => m.length));
  }
  const expected = sockets.map((_, i) => `hello from ${i} ✓`).sort();
  received.forEach((messages, i) => {
    check(`connection ${i} got each message once`, JSON.stringify([...messages].sort()) === JSON.stringify(expected), messages);
    check(`connection ${i} saw the same order as connection 0`, JSON.stringify(messages) === JSON.stringify(received[0]), messages);
  });

  const closed = sockets.map((ws) => new Promise((resolve) => ws.once('close', (code) => resolve(code))));
  sockets.forEach((ws) => ws.close(1000, 'bye'));
  const codes = await withTimeout(Promise.all(closed), 10000, 'close handshakes');
  check('close handshakes', codes.every((code) => code === 1000), codes);
}

main().catch((error) => {
  check('no error', false, String(error));
}).finally(() => process.exit(failed ? 1 : 0));
