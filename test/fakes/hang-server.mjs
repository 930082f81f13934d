#!/usr/bin/env node
// A "server" that starts, writes to stderr and never answers initialize.
// FAKE_PID_FILE: append this process's pid. FAKE_IGNORE_SIGTERM=1: only SIGKILL stops it.
import { appendFileSync } from 'node:fs';

if (process.env.FAKE_PID_FILE) appendFileSync(process.env.FAKE_PID_FILE, `${process.pid}\n`);
if (process.env.FAKE_IGNORE_SIGTERM === '1') process.on('SIGTERM', () => undefined);
process.stderr.write('hang-server: loading a very large model\n');
process.stderr.write('hang-server: still loading (this server never answers)\n');
process.stdin.resume(); // read and ignore every request
setInterval(() => undefined, 1 << 30);
