// The whole test suite: type check, then vitest, then one plain summary
// line (`tests: N passed, N failed`) for CI to read. Exit code 0 only when
// both passed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';

const resultsFile = '.test-results/vitest.json';
const extraArgs = process.argv.slice(2);

const typecheck = spawnSync('npx', ['--no-install', 'tsc', '--noEmit', '-p', 'tsconfig.json'], { stdio: 'inherit' });
const typecheckFailed = typecheck.status !== 0;
if (typecheckFailed) process.stderr.write('tsc --noEmit failed\n');

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
process.stdout.write(`tests: ${passed} passed, ${failed} failed\n`);
process.exit(typecheckFailed || vitest.status !== 0 || failed > 0 ? 1 : 0);
