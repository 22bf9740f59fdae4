import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';

/**
 * An event-file reader that shares no code with gymnast's writer: the TFRecord framing read from its
 * definition, a CRC-32C of its own (bit by bit, from the polynomial: no table to share a mistake
 * with), and the `Event` protobuf decoded by protobufjs from a schema written from TensorBoard's
 * published tensorboard/compat/proto/event.proto and summary.proto (the fields a reader meets in
 * practice; the rest of each oneof is there so that a value under a wrong number is not read as right).
 */
const SCHEMA = `
syntax = "proto3";
package tensorboard;

message Event {
  double wall_time = 1;
  int64 step = 2;
  oneof what {
    string file_version = 3;
    bytes graph_def = 4;
    Summary summary = 5;
    bytes log_message = 6;
    bytes session_log = 7;
    bytes tagged_run_metadata = 8;
    bytes meta_graph_def = 9;
  }
  bytes source_metadata = 10;
}

message Summary {
  message Value {
    string node_name = 7;
    string tag = 1;
    bytes metadata = 9;
    oneof value {
      float simple_value = 2;
      bytes obsolete_old_style_histogram = 3;
      bytes image = 4;
      bytes histo = 5;
      bytes audio = 6;
      bytes tensor = 8;
    }
  }
  repeated Value value = 1;
}
`;

const Event = protobuf.parse(SCHEMA).root.lookupType('tensorboard.Event');

/** One decoded event: what it holds, as protobufjs read it. */
export interface DecodedEvent {
  wallTime: number;
  step: number;
  /** Which field of the `what` oneof is set. */
  what: string | undefined;
  fileVersion?: string;
  /** The summary's simple values, by tag; other value kinds are listed by kind in `otherValues`. */
  scalars: Map<string, number>;
  otherValues: string[];
}

/** The records of a file, and whether it ends in one cut short (a writer that died mid-write). */
export interface ReadEvents {
  events: DecodedEvent[];
  truncated: boolean;
}

/** CRC-32C, bit by bit (Castagnoli's polynomial, reflected), as RFC 3720 defines it. */
export function referenceCrc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0x82f63b78 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** TFRecord's mask over a CRC: rotate right by 15 bits, add 0xa282ead8 (mod 2^32). */
export function referenceMask(crc: number): number {
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0;
}

/**
 * Every record of an event file, each checked: a record whose length or data CRC is wrong throws
 * (a corrupt file); a last record cut short sets `truncated`, as TensorBoard stops reading there.
 */
export function readEventFile(path: string): ReadEvents {
  const bytes = readFileSync(path);
  const events: DecodedEvent[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (at + 12 > bytes.length) return { events, truncated: true };
    const header = bytes.subarray(at, at + 8);
    if (bytes.readUInt32LE(at + 8) !== referenceMask(referenceCrc32c(header))) throw new Error(`${path}: bad length CRC at byte ${at}`);
    const length = Number(bytes.readBigUInt64LE(at));
    if (at + 12 + length + 4 > bytes.length) return { events, truncated: true };
    const data = bytes.subarray(at + 12, at + 12 + length);
    if (bytes.readUInt32LE(at + 12 + length) !== referenceMask(referenceCrc32c(data))) throw new Error(`${path}: bad data CRC at byte ${at}`);
    events.push(decodeEvent(data));
    at += 12 + length + 4;
  }
  return { events, truncated: false };
}

/** The one event file in `folder` (TensorBoard reads any file whose name holds "tfevents"). */
export function eventFileIn(folder: string): string {
  const files = readdirSync(folder).filter((name) => name.includes('tfevents'));
  if (files.length !== 1) throw new Error(`${folder}: expected one event file, found ${files.join(', ') || 'none'}`);
  return join(folder, files[0]!);
}

function decodeEvent(data: Uint8Array): DecodedEvent {
  const message = Event.decode(data);
  const event = Event.toObject(message, { longs: Number, oneofs: true, defaults: true }) as {
    wallTime: number;
    step: number;
    what?: string;
    fileVersion?: string;
    summary?: { value?: { tag: string; value?: string; simpleValue?: number }[] };
  };
  const scalars = new Map<string, number>();
  const otherValues: string[] = [];
  for (const value of event.summary?.value ?? []) {
    if (value.value === 'simpleValue') scalars.set(value.tag, value.simpleValue!);
    else otherValues.push(`${value.tag}: ${value.value}`);
  }
  return {
    wallTime: event.wallTime,
    step: event.step,
    what: event.what,
    ...(event.what === 'fileVersion' ? { fileVersion: event.fileVersion! } : {}),
    scalars,
    otherValues,
  };
}
