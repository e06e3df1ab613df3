/**
 * The CRC-32 of two byte strings one after the other, from the CRC-32 of each and the second's
 * length, as zlib's crc32_combine() (which Node does not expose) computes it: the first CRC is
 * multiplied by x^(8·len2) modulo the CRC's polynomial, in GF(2), and the second added. A split
 * query's ranges are deflated in separate processes, each counting its own CRC; the gzip trailer
 * needs the whole body's.
 */

/** The CRC-32 polynomial, bits reversed (as the CRC is computed). */
const polynomial = 0xedb88320;

/** a(x) · b(x) modulo the polynomial, both in the CRC's reversed bit order. */
function multiplyModP(a: number, b: number): number {
  let product = 0;
  for (let bit = 0x80000000; bit !== 0; bit >>>= 1) {
    if (a & bit) product ^= b;
    b = b & 1 ? (b >>> 1) ^ polynomial : b >>> 1;
  }
  return product >>> 0;
}

/** x^(2^k) modulo the polynomial, for k = 0..31 (x^1 is 0x40000000 in reversed order). */
const powersOfX: number[] = [0x40000000];
for (let k = 1; k < 32; k++) powersOfX.push(multiplyModP(powersOfX[k - 1]!, powersOfX[k - 1]!));

/** x^(n · 2^k) modulo the polynomial. */
function xPowerModP(n: number, k: number): number {
  let power = 0x80000000; // x^0
  for (; n > 0; n = Math.floor(n / 2), k++) if (n % 2 === 1) power = multiplyModP(powersOfX[k % 32]!, power);
  return power;
}

export function crc32Combine(crc1: number, crc2: number, length2: number): number {
  return (multiplyModP(xPowerModP(length2, 3), crc1) ^ crc2) >>> 0;
}
