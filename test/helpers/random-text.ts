/**
 * Texts made of `pieces` drawn at random, up to `maxPieces` each, from a seeded generator: the
 * same texts at every run, so a failure can be replayed.
 */
export function randomTexts(pieces: readonly string[], count: number, maxPieces: number, seed: number): string[] {
  let state = seed;
  const next = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31);
  return Array.from({ length: count }, () => {
    let text = '';
    for (let n = next() % (maxPieces + 1); n > 0; n--) text += pieces[next() % pieces.length]!;
    return text;
  });
}
