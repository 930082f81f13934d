import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** A vector's bytes as stored (little-endian float32), checked with CRC-32: damage, not forgery, is the threat. */
export function vectorChecksum(vector: Float32Array): number {
  return crc32(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength));
}

export interface ChecksummedFields {
  kind: string;
  text: string;
  sensitivity: string;
  sensitiveKinds: readonly string[];
  sourceTurn: string | null;
  createdMs: number;
  vectorChecksum: number;
}

/**
 * SHA-256 over every stored field of a record, its vector's checksum
 * included: a row changed behind the store's back (or a vector swapped
 * under it) no longer matches.
 */
export function recordChecksum(fields: ChecksummedFields): string {
  const canonical = JSON.stringify([
    fields.kind,
    fields.text,
    fields.sensitivity,
    fields.sensitiveKinds,
    fields.sourceTurn,
    fields.createdMs,
    fields.vectorChecksum,
  ]);
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}
