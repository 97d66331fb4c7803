#!/usr/bin/env node
// Runs shell commands at the same time and fails if any fails: `node .ci/together.mjs 'cmd a' 'cmd b' …`.
// `npm test` uses it for suites that wait more than they compute (child servers, timers, PostgreSQL), so two of them
// share the two cores of a CI machine. The first command streams its output as it comes; each other one is held and
// printed whole when it ends, so no two outputs interleave line by line. Ctrl-C (or a CI cancel) stops them all.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import process from 'node:process';

const commands = process.argv.slice(2);
if (commands.length === 0) {
  process.stderr.write('usage: node .ci/together.mjs <command> [<command> …]\n');
  process.exit(2);
}

const children = new Set();
const seconds = (t0) => ((Date.now() - t0) / 1000).toFixed(0);

function run(command, live) {
  const t0 = Date.now();
  // detached: each command leads its own process group, so a stop reaches everything it started.
  const child = spawn(command, { shell: true, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const held = [];
  const take = (stream, sink) =>
    stream.on('data', (d) => {
      if (live) sink.write(d);
      else held.push(d);
    });
  take(child.stdout, process.stdout);
  take(child.stderr, process.stderr);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      children.delete(child);
      const ok = code === 0;
      const how = signal ? `signal ${signal}` : `exit ${code}`;
      if (!live) process.stdout.write(`\n── ${command} ──\n${Buffer.concat(held).toString()}`);
      process.stdout.write(`── ${command}: ${ok ? 'passed' : `FAILED (${how})`} in ${seconds(t0)} s ──\n`);
      resolve(ok);
    });
  });
}

const stopAll = (signal) => {
  for (const c of children) {
    try {
      process.kill(-c.pid, signal);
    } catch {
      // already gone
    }
  }
};
for (const s of ['SIGINT', 'SIGTERM']) {
  process.on(s, () => {
    stopAll(s);
    process.exitCode = 130;
  });
}

const results = await Promise.all(commands.map((c, i) => run(c, i === 0)));
const failed = commands.filter((_, i) => !results[i]);
if (failed.length > 0) {
  process.stderr.write(`failed: ${failed.join(' | ')}\n`);
  process.exit(1);
}
