import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonString } from '../../src/formats/values.js';
import { randomTexts } from '../helpers/random-text.js';

test('jsonString escapes <, >, &, U+2028 and U+2029 wherever they are, and nothing else', () => {
  assert.equal(jsonString(''), '""');
  assert.equal(jsonString('plain "quoted" \\ é中\n'), JSON.stringify('plain "quoted" \\ é中\n'));
  assert.equal(jsonString('<'), '"\\u003c"');
  assert.equal(jsonString('&&<>>'), '"\\u0026\\u0026\\u003c\\u003e\\u003e"');
  assert.equal(jsonString('<a href="x">&amp;</a>'), '"\\u003ca href=\\"x\\"\\u003e\\u0026amp;\\u003c/a\\u003e"');
  assert.equal(jsonString('\u2028start, end\u2029'), '"\\u2028start, end\\u2029"');
  assert.equal(jsonString('lone \ud800 <'), '"lone \\ud800 \\u003c"');
});

test('jsonString: random text reads back as itself, with none of the escaped characters left raw', () => {
  const alphabet = ['a', 'é', '中', '<', '>', '&', '"', '\\', '\n', '\u2028', '\u2029', '\ud83d\ude00', ' '];
  let seed = 7;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
  for (let i = 0; i < 2000; i++) {
    let s = '';
    for (let n = next() % 40; n > 0; n--) s += alphabet[next() % alphabet.length];
    const json = jsonString(s);
    assert.equal(JSON.parse(json), s);
    assert.doesNotMatch(json, /[<>&\u2028\u2029]/);
  }
});

test("jsonString gives JSON.stringify's bytes (less the HTML escapes), with or without anything to escape", () => {
  const htmlSafe = (json: string) => json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const alphabet = [
    'a',
    'Z',
    ' ',
    'é',
    '中',
    '"',
    '\\',
    '/',
    '\n',
    '\r',
    '\t',
    '\u0000',
    '\u001f',
    '\u007f',
    '\u0080',
    '\ud83d\ude00',
    '\ud800',
    '\udfff',
    '\ufffd',
    '\uffff',
    '<',
    '&',
  ];
  // Strings of letters alone, the fast way, and strings of anything.
  const texts = [...randomTexts(alphabet.slice(0, 5), 2500, 29, 11), ...randomTexts(alphabet, 2500, 29, 12)];
  for (const text of texts) assert.equal(jsonString(text), htmlSafe(JSON.stringify(text)), JSON.stringify(text));
});

test("jsonString gives JSON.stringify's bytes (less the HTML escapes) for every UTF-16 code unit, alone and among letters", () => {
  const htmlSafe = (json: string) => json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  for (let unit = 0; unit <= 0xffff; unit++) {
    const c = String.fromCharCode(unit);
    assert.equal(jsonString(c), htmlSafe(JSON.stringify(c)), `U+${unit.toString(16)}`);
    assert.equal(jsonString(`ab${c}cd`), htmlSafe(JSON.stringify(`ab${c}cd`)), `U+${unit.toString(16)}`);
  }
});
