import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const DIST = join(REPO_ROOT, 'dist');
export const CLI = join(DIST, 'src/host/cli/main.js');
export const TOOLS_SERVER = join(DIST, 'mcp-servers/tools/main.js');
export const EXAMPLES = join(REPO_ROOT, 'examples');
export const MEMORY_SERVER = join(DIST, 'mcp-servers/memory/main.js');
