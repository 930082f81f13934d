#!/usr/bin/env node
// Stands in for the Open Interpreter CLI (`interpreter --auto_run "task"`):
// arguments in, text out on stdout, an exit code. The task is the last
// argument that is not an option (or the value of --message=); a few
// prefixes script its behaviour:
//
//   argv:          print {argv, cwd, env} as one JSON line (env: the variable names only)
//   fail:          write three lines to stderr and exit 3
//   hang:          start a child process of its own, write both pids to
//                  ./stand-in.pids (in its working folder), then wait forever
//   flood:N        print N characters ("<begin>", x's, "<end>") and a newline
//   anything else  answer like the CLI would, with a colour code in it
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const argv = process.argv.slice(2);
const message = argv.find((a) => a.startsWith('--message='))?.slice('--message='.length);
const task = message ?? argv.filter((a) => !a.startsWith('-')).at(-1) ?? '';

if (task.startsWith('argv:')) {
  const env = Object.keys(process.env).sort();
  process.stdout.write(`${JSON.stringify({ argv, cwd: process.cwd(), env })}\n`);
} else if (task.startsWith('fail:')) {
  process.stdout.write('Thinking...\n');
  process.stderr.write('Traceback (most recent call last):\n  File "interpreter", line 1\nlitellm.AuthenticationError: no API key\n');
  process.exitCode = 3;
} else if (task.startsWith('hang:')) {
  // A grandchild of the server: only a kill of the whole process group stops it.
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
  writeFileSync('stand-in.pids', `${process.pid}\n${child.pid}\n`);
  process.stdout.write('Working on it...\n');
  setInterval(() => undefined, 1 << 30);
} else if (task.startsWith('flood:')) {
  const size = Number(task.slice('flood:'.length));
  process.stdout.write(`<begin>${'x'.repeat(Math.max(0, size - 12))}<end>\n`);
} else {
  process.stdout.write(`\u001b[1m▌ Open Interpreter (stand-in)\u001b[0m\n`);
  process.stdout.write(`Task: ${task}\nThe task is done.\n`);
}
