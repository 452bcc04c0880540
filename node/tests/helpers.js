'use strict';
// Shared by the tests: the repository's built components and the tests' compile cache.
// TOOLHOST_REPO names the repository when the tests run from a copy of this folder
// (scripts/test-node.sh runs them in a fresh project that installed the package).
const path = require('node:path');
const fs = require('node:fs');

const root = process.env.TOOLHOST_REPO || path.resolve(__dirname, '..', '..');
const plugins = path.join(root, 'target', 'plugins');
const guests = path.join(root, 'target', 'test-guests');
const cacheDir = process.env.TOOLHOST_TEST_CACHE || path.join(root, 'target', 'test-cache');

/** A test guest's component file. */
function guest(name) {
  const file = path.join(guests, `${name}.wasm`);
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: build the guests first (scripts/build-guests.sh)`);
  return file;
}

module.exports = { root, plugins, guest, cacheDir };
