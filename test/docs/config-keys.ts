/**
 * The keys of config.toml as dotted paths (`vad.silence_ms`,
 * `mcp.<name>.command`), read from the schema itself so the list cannot go
 * stale. A record or catch-all of tables contributes a `<name>` (or `<lang>`)
 * segment; a value that is not a table (a list, a record of plain values
 * such as `[env]`) is one key.
 */
import type { z } from 'zod';

type Def = { type: string; [field: string]: unknown };

function defOf(schema: unknown): Def {
  return (schema as { _zod: { def: Def } })._zod.def;
}

/** The schema under defaults, optionals, transforms and preprocessors. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (def.type === 'default' || def.type === 'prefault' || def.type === 'optional' || def.type === 'nullable') {
      current = def.innerType as z.ZodType;
    } else if (def.type === 'pipe') {
      // seconds() is number -> transform; z.preprocess is transform -> schema: keep the side with the shape.
      const input = def.in as z.ZodType;
      current = defOf(input).type === 'transform' ? (def.out as z.ZodType) : input;
    } else {
      return current;
    }
  }
}

function isTable(schema: z.ZodType): boolean {
  const def = defOf(unwrap(schema));
  return def.type === 'object' || (def.type === 'record' && isTable(def.valueType as z.ZodType));
}

/** `placeholder` names the free segment of a record or catch-all: `<name>`, `<lang>`. */
export function configKeys(schema: z.ZodType, placeholders: Readonly<Record<string, string>> = {}): string[] {
  const keys: string[] = [];
  const walk = (node: z.ZodType, path: string[]): void => {
    const inner = unwrap(node);
    const def = defOf(inner);
    const dotted = path.join('.');
    if (def.type === 'object') {
      for (const [key, child] of Object.entries(def.shape as Record<string, z.ZodType>)) walk(child, [...path, key]);
      const catchall = def.catchall as z.ZodType | undefined;
      if (catchall && defOf(catchall).type !== 'never') {
        if (isTable(catchall)) walk(catchall, [...path, placeholders[dotted] ?? '<name>']);
        else keys.push(`${dotted}.${placeholders[dotted] ?? '<name>'}`);
      }
    } else if (def.type === 'record' && isTable(def.valueType as z.ZodType)) {
      walk(def.valueType as z.ZodType, [...path, placeholders[dotted] ?? '<name>']);
    } else {
      keys.push(dotted);
    }
  };
  walk(schema, []);
  return keys;
}
