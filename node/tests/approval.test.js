'use strict';
// Approval from Node: a tool that needs a person's yes calls `approval.ask` with its
// name and arguments, and runs only when it returns (or resolves to) `true`.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Host, ToolExecutionError } = require('toolhost');
const { guest, cacheDir } = require('./helpers');

/** A folder with the hostile guest, its `env_var` tool marked as needing approval. */
function folder() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolhost-approval-'));
  fs.copyFileSync(guest('hostile'), path.join(dir, 'hostile.wasm'));
  fs.writeFileSync(path.join(dir, 'hostile.toml'), '[tools.env_var]\napproval = true\n\n[env]\nGREETING = "hi"\n');
  return dir;
}

test('ask is called with the tool and its arguments, and only true lets the call run', async () => {
  const asked = [];
  const answers = [true, Promise.resolve(true), false, 'yes', 1, undefined];
  const ask = (tool, args) => {
    asked.push([tool, args]);
    return answers.shift();
  };
  const host = await Host.load(folder(), { cacheDir, approval: { ask, waitMs: 5000 } });
  assert.equal(await host.call('echo', { text: 'x' }), 'x', 'a tool that needs no approval runs unasked');
  const first = await host.dispatch('Env_Var', { NAME: 'GREETING' });
  assert.deepEqual([first.value, first.approved], ['hi', true]);
  assert.equal(await host.call('env_var', { name: 'GREETING' }), 'hi', 'a Promise of true approves');
  for (let i = 0; i < 4; i++) {
    const refused = await host.dispatch('env_var', { name: 'GREETING' });
    assert.equal(refused.error.kind, 'not_approved');
    assert.match(refused.error.message, /did not approve running 'env_var'/);
    assert.equal(refused.approved, false);
  }
  // The name as registered, the arguments as the tool gets them (repaired).
  assert.deepEqual(asked, Array(6).fill(['env_var', { name: 'GREETING' }]));
});

test('a throw dismisses, silence leaves the call unrun, and without ask such a tool is refused', async () => {
  const warnings = [];
  const onWarning = (warning) => warnings.push(String(warning.message));
  process.on('warning', onWarning);
  try {
    const broken = await Host.load(folder(), {
      cacheDir,
      approval: { ask: async () => { throw new Error('the approval UI is down'); } },
    });
    await assert.rejects(broken.call('env_var', { name: 'GREETING' }), (error) => {
      assert.ok(error instanceof ToolExecutionError);
      assert.match(error.message, /dismissed the request to run 'env_var'/);
      return true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(warnings.some((w) => w.includes('the approval UI is down')), warnings.join('\n'));
  } finally {
    process.off('warning', onWarning);
  }
  const silent = await Host.load(folder(), { cacheDir, approval: { ask: () => new Promise(() => {}), waitMs: 300 } });
  await assert.rejects(silent.call('env_var', { name: 'GREETING' }), /Nobody approved running 'env_var' within 0 s/);
  const none = await Host.load(folder(), { cacheDir });
  await assert.rejects(none.call('env_var', { name: 'GREETING' }), /this caller cannot ask one/);
  // Named by pattern, destructive off: the hints alone do not ask.
  const named = await Host.load(folder(), {
    cacheDir,
    approval: { ask: () => false, destructive: false, tools: ['ec*'] },
  });
  await assert.rejects(named.call('echo', { text: 'x' }), /did not approve running 'echo'/);
  await assert.rejects(Host.load(folder(), { approval: { ask: 'yes' } }), TypeError);
});
