/** CRC-32C's polynomial (Castagnoli), bit-reversed: the checksum of TFRecord files, which event files are. */
const POLYNOMIAL = 0x82f63b78;

/** The remainder of every byte value, computed once: one table lookup per byte instead of eight shifts. */
const TABLE = Uint32Array.from({ length: 256 }, (_, byte) => {
  let crc = byte;
  for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ POLYNOMIAL : crc >>> 1;
  return crc;
});

/** CRC-32C of `bytes` (RFC 3720, appendix B.4): `crc32c("123456789") === 0xe3069283`. */
export function crc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * The CRC as a TFRecord stores it: rotated right by 15 bits and offset by a constant, so that a CRC
 * computed over data that itself holds CRCs does not come out trivially (TensorFlow's `crc32c::Mask`).
 */
export function maskedCrc32c(bytes: Uint8Array): number {
  const crc = crc32c(bytes);
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0;
}
