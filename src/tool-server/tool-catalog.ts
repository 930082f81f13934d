import { isDeepStrictEqual } from 'node:util';
import { loadToolFiles, toMcpTool, type ToolDefinition } from '../tool-files/index.js';

export interface CatalogUpdate {
  /** Whether the offered tools differ from before. */
  changed: boolean;
  /** Problems found in this pass, one per line, each naming its file. */
  errors: string[];
}

/**
 * The tools a server offers, kept across reloads: a file that became
 * invalid keeps its last good version (its error is reported), a removed
 * file removes its tool, a folder that cannot be listed keeps them all.
 */
export class ToolCatalog {
  private tools = new Map<string, ToolDefinition>();

  constructor(private readonly listFiles: () => Promise<string[]>) {}

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  list(): ToolDefinition[] {
    return [...this.tools.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  async reload(): Promise<CatalogUpdate> {
    let files: string[];
    try {
      files = await this.listFiles();
    } catch (error) {
      // The folder cannot be listed (replaced by a file, made unreadable): the tools stay as they were.
      return { changed: false, errors: [`${(error as Error).message}: the tools stay as last loaded`] };
    }
    const { tools, errors } = await loadToolFiles(files);
    const next = new Map<string, ToolDefinition>(tools.map((t) => [t.name, t]));
    const present = new Set(files);
    for (const [name, previous] of this.tools) {
      if (!next.has(name) && present.has(previous.path)) next.set(name, previous);
    }
    const changed = !isDeepStrictEqual(this.describe(this.tools), this.describe(next));
    this.tools = next;
    return { changed, errors };
  }

  private describe(tools: Map<string, ToolDefinition>): unknown {
    return [...tools.values()].sort((a, b) => a.path.localeCompare(b.path)).map((t) => [t.path, toMcpTool(t), t.command]);
  }
}
