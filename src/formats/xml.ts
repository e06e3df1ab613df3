/**
 * Text for XML 1.0 documents, whatever the data holds.
 *
 * XML 1.0 cannot carry every string: C0 control characters other than tab, LF and CR, lone
 * surrogates, U+FFFE and U+FFFF are not allowed even as character references, so they are replaced
 * with U+FFFD (the replacement character, which is also what UTF-8 encoding does with a lone
 * surrogate). With the `u` flag a well-formed surrogate pair is one code point, so only lone
 * surrogates match the \uD800-\uDFFF range.
 */
const notXmlChar = '\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uD800-\\uDFFF\\uFFFE\\uFFFF';

/**
 * In element text, `&` and `<` must be escaped, `>` is escaped so `]]>` cannot appear, and CR is
 * written as a reference because a parser turns a literal CR (and CRLF) into LF.
 */
const textPattern = new RegExp(`[&<>\\r${notXmlChar}]`, 'gu');
/** In an attribute value a parser also turns literal tabs and line ends into spaces, and `"` ends the value. */
const attributePattern = new RegExp(`[&<>"\\t\\n\\r${notXmlChar}]`, 'gu');

const replacements: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};
const replace = (c: string) => replacements[c] ?? '\uFFFD';

/** A string as the text content of an element. */
export function xmlText(s: string): string {
  textPattern.lastIndex = 0;
  return textPattern.test(s) ? s.replace(textPattern, replace) : s;
}

/** A string as a double-quoted attribute value. */
export function xmlAttribute(s: string): string {
  attributePattern.lastIndex = 0;
  return attributePattern.test(s) ? s.replace(attributePattern, replace) : s;
}
