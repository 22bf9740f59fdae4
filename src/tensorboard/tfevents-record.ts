import { maskedCrc32c } from './crc32c.js';

/** Bytes a record adds around its data: the length (8), its CRC (4), and the data's CRC (4). */
export const RECORD_OVERHEAD = 16;

/**
 * One record of a TFRecord file, the framing of TensorBoard's event files: the data's length as a
 * little-endian uint64, the masked CRC-32C of those 8 bytes, the data, and the masked CRC-32C of the
 * data. A reader that finds a record cut short (a crash mid-write) or a CRC that does not match knows
 * the file ends there.
 */
export function tfeventsRecord(data: Uint8Array): Buffer {
  const record = Buffer.alloc(data.length + RECORD_OVERHEAD);
  record.writeBigUInt64LE(BigInt(data.length), 0);
  record.writeUInt32LE(maskedCrc32c(record.subarray(0, 8)), 8);
  record.set(data, 12);
  record.writeUInt32LE(maskedCrc32c(data), 12 + data.length);
  return record;
}
