import type { Statement } from 'better-sqlite3';
import type { PinStore, ToolPin } from './types.js';
import type { StateDb } from './state-db.js';

interface PinRow {
  server: string;
  tool: string;
  hash: string;
  definition: string;
  approved_at_ms: number;
}

/** Tool pins in the state database, one row per server and tool (the tool's name on its server). */
export class SqlitePinStore implements PinStore {
  private readonly selectOne: Statement<[string, string], PinRow>;
  private readonly selectAll: Statement<[], PinRow>;
  private readonly upsert: Statement<[string, string, string, string, number]>;
  private readonly deleteOne: Statement<[string, string]>;

  constructor(private readonly state: StateDb) {
    [this.selectOne, this.selectAll, this.upsert, this.deleteOne] = state.use((db) => [
      db.prepare<[string, string], PinRow>('SELECT * FROM tool_pins WHERE server = ? AND tool = ?'),
      db.prepare<[], PinRow>('SELECT * FROM tool_pins ORDER BY server, tool'),
      db.prepare<[string, string, string, string, number]>(
        `INSERT INTO tool_pins (server, tool, hash, definition, approved_at_ms) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (server, tool) DO UPDATE SET
           hash = excluded.hash, definition = excluded.definition, approved_at_ms = excluded.approved_at_ms`,
      ),
      db.prepare<[string, string]>('DELETE FROM tool_pins WHERE server = ? AND tool = ?'),
    ]);
  }

  get(server: string, tool: string): ToolPin | undefined {
    const row = this.state.use(() => this.selectOne.get(server, tool));
    return row === undefined ? undefined : fromRow(row);
  }

  put(pin: ToolPin): void {
    this.state.use(() => this.upsert.run(pin.server, pin.tool, pin.hash, pin.definition, pin.approvedAtMs));
  }

  /** Every pin, by server then tool. */
  list(): ToolPin[] {
    return this.state.use(() => this.selectAll.all()).map(fromRow);
  }

  /** Forgets a pin (the next sighting pins afresh); true when there was one. */
  delete(server: string, tool: string): boolean {
    return this.state.use(() => this.deleteOne.run(server, tool)).changes > 0;
  }
}

function fromRow(row: PinRow): ToolPin {
  return { server: row.server, tool: row.tool, hash: row.hash, definition: row.definition, approvedAtMs: row.approved_at_ms };
}
