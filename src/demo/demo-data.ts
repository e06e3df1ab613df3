import Database from 'better-sqlite3';

/**
 * A demo scraper's data: planning applications as a council scraper on morph.io would collect them,
 * with the title, content, link and date columns a feed needs. Generated from a fixed seed, so
 * every fresh clone serves the same rows.
 */
const streets = [
  'Lurline Street',
  'Katoomba Street',
  'Govett Street',
  'Bathurst Road',
  'Waratah Street',
  'Great Western Highway',
  'Cascade Street',
  'Hat Hill Road',
  'Station Street',
  'Macquarie Road',
];
const suburbs = ['Katoomba', 'Leura', 'Wentworth Falls', 'Blackheath', 'Springwood', 'Lawson', 'Faulconbridge'];
const works = [
  'Two storey dwelling',
  'Alterations and additions to dwelling',
  'Swimming pool and fencing',
  'Demolition of existing garage',
  'Secondary dwelling ("granny flat")',
  'Tree removal: 2 x Eucalyptus',
  'Change of use to café & restaurant',
  'Deck, pergola & carport',
  'Subdivision into 2 lots',
  'Signage <illuminated> for shopfront',
];

/** A small deterministic PRNG (mulberry32), so the demo data is the same on every machine. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const demoRowCount = 300;

export function writeDemoDatabase(file: string): void {
  const next = random(20240301);
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)]!;
  const db = new Database(file);
  db.exec(`create table data (
    council_reference text primary key, title text, content text, link text, date text,
    address text, suburb text, estimated_cost integer, lat real, lng real)`);
  const insert = db.prepare('insert into data values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const start = Date.UTC(2024, 0, 2);
  db.transaction(() => {
    for (let i = 0; i < demoRowCount; i++) {
      const reference = `DA-${2024 + Math.floor(i / 150)}/${String(100 + i).padStart(4, '0')}`;
      const suburb = pick(suburbs);
      const address = `${1 + Math.floor(next() * 180)} ${pick(streets)}, ${suburb} NSW 2780`;
      const work = pick(works);
      const date = new Date(start + i * 2.3 * 86_400_000).toISOString().slice(0, 10);
      const cost = Math.round(next() * 900) * 1000;
      insert.run(
        reference,
        `${work} at ${address}`,
        `${work}. Estimated cost $${cost.toLocaleString('en-AU')}. Submissions close 14 days after lodgement.`,
        `https://planning.example.org/applications/${reference.replace('/', '-')}`,
        date,
        address,
        suburb,
        cost,
        -33.7 - next() * 0.1,
        150.3 + next() * 0.2,
      );
    }
  })();
  db.close();
}
