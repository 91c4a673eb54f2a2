#!/usr/bin/env node
// node inspect.mjs FILE.throng: prints what `throng inspect FILE.throng --json` prints, read by
// this independent reader. A refused file: the reason on stderr, exit status 1.
import { readFileSync } from 'node:fs';
import { inspect } from './read.mjs';

const file = process.argv[2];
if (!file || process.argv.length > 3) {
  process.stderr.write('usage: node inspect.mjs FILE.throng\n');
  process.exit(2);
}
let out;
try {
  out = inspect(readFileSync(file), file);
} catch (e) {
  process.stderr.write(`error: ${e.message}\n`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify(out)}\n`);
