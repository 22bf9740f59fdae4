/**
 * The first event of every event file: TensorBoard reads a file whose first record names this
 * version, and would take an older one for TensorFlow 1's format.
 */
export const FILE_VERSION = 'brain.Event:2';

/** What one event holds: the file's version (the first record), or scalars under their tags. */
export type EventContent = { fileVersion: string } | { scalars: ReadonlyMap<string, number> };

/** One `Event` at a step, in seconds since the epoch. */
export interface EventFields {
  wallTime: number;
  /** A non-negative integer: TensorBoard's x axis. */
  step: number;
  content: EventContent;
}

// Field numbers and wire types of TensorBoard's event.proto and summary.proto (tensorboard/compat/proto).
// A key is (field number << 3) | wire type: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32.
const EVENT_WALL_TIME = (1 << 3) | 1; // double wall_time = 1
const EVENT_STEP = (2 << 3) | 0; // int64 step = 2
const EVENT_FILE_VERSION = (3 << 3) | 2; // string file_version = 3 (oneof what)
const EVENT_SUMMARY = (5 << 3) | 2; // Summary summary = 5 (oneof what)
const SUMMARY_VALUE = (1 << 3) | 2; // repeated Summary.Value value = 1
const VALUE_TAG = (1 << 3) | 2; // string tag = 1
const VALUE_SIMPLE_VALUE = (2 << 3) | 5; // float simple_value = 2 (oneof value)

/**
 * The protobuf encoding of one `Event`, written by hand: the few fields a scalar needs do not justify
 * a protobuf runtime. Fields go in number order and a zero step is left out, as proto3 encoders do.
 */
export function encodeEvent(event: EventFields): Uint8Array {
  if (!Number.isSafeInteger(event.step) || event.step < 0) throw new RangeError(`an event's step is a non-negative integer, got ${event.step}`);
  const out = new ProtoWriter();
  out.key(EVENT_WALL_TIME).double(event.wallTime);
  if (event.step > 0) out.key(EVENT_STEP).varint(event.step);
  const { content } = event;
  if ('fileVersion' in content) out.key(EVENT_FILE_VERSION).bytes(Buffer.from(content.fileVersion, 'utf8'));
  else out.key(EVENT_SUMMARY).bytes(encodeSummary(content.scalars));
  return out.finish();
}

function encodeSummary(scalars: ReadonlyMap<string, number>): Uint8Array {
  const summary = new ProtoWriter();
  for (const [tag, value] of scalars) {
    const entry = new ProtoWriter();
    entry.key(VALUE_TAG).bytes(Buffer.from(tag, 'utf8'));
    entry.key(VALUE_SIMPLE_VALUE).float(value);
    summary.key(SUMMARY_VALUE).bytes(entry.finish());
  }
  return summary.finish();
}

/** Protobuf's wire encoding, only the parts an event needs; each call appends. */
class ProtoWriter {
  private readonly chunks: Uint8Array[] = [];

  key(key: number): this {
    return this.varint(key);
  }

  /** A non-negative safe integer, 7 bits a byte, low bits first: division, not `>>>`, so steps past 2^31 keep their high bits. */
  varint(value: number): this {
    const bytes: number[] = [];
    let rest = value;
    while (rest >= 0x80) {
      bytes.push((rest % 0x80) | 0x80);
      rest = Math.floor(rest / 0x80);
    }
    bytes.push(rest);
    this.chunks.push(Uint8Array.from(bytes));
    return this;
  }

  double(value: number): this {
    const bytes = Buffer.alloc(8);
    bytes.writeDoubleLE(value);
    this.chunks.push(bytes);
    return this;
  }

  float(value: number): this {
    const bytes = Buffer.alloc(4);
    bytes.writeFloatLE(value);
    this.chunks.push(bytes);
    return this;
  }

  /** Length-delimited: a string's UTF-8 bytes or an embedded message. */
  bytes(value: Uint8Array): this {
    this.varint(value.length);
    this.chunks.push(value);
    return this;
  }

  finish(): Uint8Array {
    return Buffer.concat(this.chunks);
  }
}
