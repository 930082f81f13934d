import { existsSync } from 'node:fs';
import { CLI, TOOLS_SERVER } from './helpers/paths.js';

/** Integration tests run the compiled servers: the test command builds them first. */
export default function checkBuilt(): void {
  for (const file of [CLI, TOOLS_SERVER]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm test\` (it builds) or \`npm run build\` first`);
  }
}
