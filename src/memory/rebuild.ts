import { AppError } from '../errors/index.js';
import { logEvent, type LogSink } from '../log/index.js';
import type { Embedder } from './embedder.js';
import type { ProgressListener } from './progress.js';
import { checkRow, type MemoryRecords, type StoredRow } from './records.js';

export const META_EMBEDDER = 'embedder';
const EMBED_BATCH = 64;
/** Other processes may save while the vectors are computed; past this many tries the rebuild gives up. */
const MAX_PASSES = 5;

export interface RebuildReport {
  records: number;
  /** Vectors computed again: all of them after an embedder change, else the damaged ones. */
  reembedded: number;
  /** Records whose checksum no longer matched and were signed again as they now are. */
  resigned: number;
  embedder: string;
  durationMs: number;
}

interface Planned {
  row: StoredRow;
  embed: boolean;
  resign: boolean;
}

class ChangedMeanwhile extends Error {}

/**
 * Makes every record's vector come from `embedder` and match its
 * checksums: vectors are computed (outside any lock) for the records that
 * need it, then all are written in one transaction with the store's
 * embedder and a `rebuild` change, so every process reloads its index and
 * no one ever sees vectors of two embedders. Records saved meanwhile make
 * the pass start over.
 */
export async function rebuildVectors(
  records: MemoryRecords,
  embedder: Embedder,
  options: { reason: string; signal?: AbortSignal; log?: LogSink; onProgress?: ProgressListener },
): Promise<RebuildReport> {
  const started = Date.now();
  const log = options.log ?? process.stderr;
  logEvent('info', 'memory_rebuild_started', { reason: options.reason, embedder: embedder.id }, log);
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const { plan, lastId, embedderChanged } = records.read(() => planRebuild(records, embedder.id));
    const toEmbed = plan.filter((p) => p.embed);
    const vectors = await embedInBatches(embedder, toEmbed.map((p) => p.row.text), options.signal, options.onProgress);
    const byId = new Map(toEmbed.map((p, i) => [p.row.id, vectors[i] as Float32Array]));
    try {
      records.write(() => {
        if (embedderChanged !== (records.meta(META_EMBEDDER) !== embedder.id)) throw new ChangedMeanwhile();
        for (const planned of plan) {
          const now = records.row(planned.row.id);
          if (!now) continue;
          if (now.checksum !== planned.row.checksum) throw new ChangedMeanwhile();
          const vector = byId.get(planned.row.id);
          if (vector) records.replaceVector(now, vector);
          else if (planned.resign) records.replaceVector(now, checkRow(now).vector);
        }
        if (records.maxId() > lastId) throw new ChangedMeanwhile();
        records.setMeta(META_EMBEDDER, embedder.id);
        records.markRebuilt();
      });
    } catch (error) {
      if (error instanceof ChangedMeanwhile) continue;
      throw error;
    }
    const report: RebuildReport = {
      records: plan.length,
      reembedded: toEmbed.length,
      resigned: plan.filter((p) => p.resign && !p.embed).length,
      embedder: embedder.id,
      durationMs: Date.now() - started,
    };
    logEvent('info', 'memory_rebuild_done', { ...report }, log);
    return report;
  }
  throw new AppError('MEMORY_REBUILD_BUSY', `the memory store kept changing during ${MAX_PASSES} rebuild passes; try again when it is idle`, { retryable: true });
}

function planRebuild(records: MemoryRecords, embedderId: string): { plan: Planned[]; lastId: number; embedderChanged: boolean } {
  const embedderChanged = records.meta(META_EMBEDDER) !== embedderId;
  const plan: Planned[] = [];
  let lastId = 0;
  for (const row of records.rows()) {
    const checked = checkRow(row);
    const vectorDamaged = !checked.vectorIntact || checked.vector.length === 0 || !checked.vector.every(Number.isFinite);
    plan.push({ row: embedderChanged || vectorDamaged ? row : { ...row, vector: Buffer.alloc(0) }, embed: embedderChanged || vectorDamaged, resign: !checked.intact });
    lastId = row.id;
  }
  return { plan, lastId, embedderChanged };
}

async function embedInBatches(embedder: Embedder, texts: string[], signal?: AbortSignal, onProgress?: ProgressListener): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  if (texts.length > 0) onProgress?.({ task: 'embedding', done: 0, total: texts.length });
  for (let i = 0; i < texts.length; i += EMBED_BATCH) {
    signal?.throwIfAborted();
    out.push(...(await embedder.embed(texts.slice(i, i + EMBED_BATCH), { signal })));
    onProgress?.({ task: 'embedding', done: out.length, total: texts.length });
  }
  return out;
}
