'use strict';
// The package as a user has it: installed from the tarball scripts/dist.sh packs,
// with its prebuilt addon (scripts/test-node.sh runs the tests in such a project).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

test('toolhost is the installed package with its prebuilt addon', () => {
  const entry = require.resolve('toolhost');
  const installed = path.join('node_modules', 'toolhost', 'lib', 'index.js');
  assert.ok(entry.endsWith(installed), `${entry} is not an installed package: run scripts/test-node.sh`);
  assert.equal(process.env.TOOLHOST_NATIVE, undefined, 'the package loads its own addon');
  const addon = path.join(path.dirname(entry), '..', `toolhost.${process.platform}-${process.arch}-gnu.node`);
  assert.ok(fs.statSync(addon).size > 0);
  const manifest = JSON.parse(fs.readFileSync(path.join(path.dirname(entry), '..', 'package.json'), 'utf8'));
  assert.equal(manifest.name, 'toolhost');
  assert.equal(typeof require('toolhost').Host.load, 'function');
});
