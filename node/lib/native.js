'use strict';
// Loads the native addon: TOOLHOST_NATIVE names a file (the workspace's debug build,
// target/debug/libtoolhost_node.so, in this repository's tests); otherwise the
// prebuilt addon the package ships beside lib/.
const path = require('node:path');

function load() {
  const file = process.env.TOOLHOST_NATIVE || path.join(__dirname, '..', `toolhost.${process.platform}-${process.arch}-gnu.node`);
  const module = { exports: {} };
  try {
    process.dlopen(module, file);
  } catch (error) {
    throw new Error(
      `toolhost: cannot load its native addon ${file} (${error.message}). ` +
        'Install a toolhost build for this platform, or set TOOLHOST_NATIVE to an addon built with ' +
        '`cargo build -p toolhost-node` (target/debug/libtoolhost_node.so).',
    );
  }
  return module.exports;
}

module.exports = load();
