// The whole test suite: type check and promise lint, then vitest, then one
// plain summary line (`tests: N passed, N failed`) for CI to read. Exit code
// 0 only when all three passed.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';

const resultsFile = '.test-results/vitest.json';
const extraArgs = process.argv.slice(2);

/** Runs a check with its output held back, so two running at once do not interleave. */
function check(command, args) {
  return new Promise((resolve) => {
    const child = spawn('npx', ['--no-install', command, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code) => resolve({ ok: code === 0, output: Buffer.concat(output) }));
  });
}

// Each reads the whole program single-threaded (tsc about 16 s of CPU here,
// eslint's type-aware rules about 30 s): side by side they take the longer one.
const [typecheck, lint] = await Promise.all([
  check('tsc', ['--noEmit', '-p', 'tsconfig.json']),
  check('eslint', ['--max-warnings', '0', '.']),
]);
process.stdout.write(typecheck.output);
const typecheckFailed = !typecheck.ok;
if (typecheckFailed) process.stderr.write('tsc --noEmit failed\n');
process.stdout.write(lint.output);
const lintFailed = !lint.ok;
if (lintFailed) process.stderr.write('eslint failed: a promise is dropped or misused (eslint.config.js says which rules)\n');
else process.stdout.write('eslint: no floating or misused promises\n');

mkdirSync('.test-results', { recursive: true });
rmSync(resultsFile, { force: true });
const vitest = spawnSync(
  'npx',
  ['--no-install', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${resultsFile}`, ...extraArgs],
  { stdio: 'inherit' },
);

let passed = 0;
let failed = 0;
try {
  const report = JSON.parse(readFileSync(resultsFile, 'utf8'));
  passed = report.numPassedTests;
  failed = report.numFailedTests + (report.numFailedTestSuites > 0 && report.numFailedTests === 0 ? report.numFailedTestSuites : 0);
} catch {
  failed += 1;
  process.stderr.write('vitest wrote no results\n');
}
if (typecheckFailed) failed += 1;
if (lintFailed) failed += 1;
process.stdout.write(`tests: ${passed} passed, ${failed} failed\n`);
process.exit(typecheckFailed || lintFailed || vitest.status !== 0 || failed > 0 ? 1 : 0);
