/**
 * `npm run docs`: writes the parts of docs/api.md generated from the code (the formats' sample
 * bodies, the errors, the limits) with the defaults. test/docs.test.ts fails when the committed file
 * differs from what this would write.
 */
import { writeFileSync } from 'node:fs';
import { apiReferenceFile, generatedParts, readApiReference, withGeneratedParts } from '../src/views/docs-reference.js';

const before = readApiReference();
const after = withGeneratedParts(before, generatedParts());
if (after !== before) writeFileSync(apiReferenceFile, after);
console.log(after === before ? 'docs/api.md is up to date' : 'docs/api.md: generated parts rewritten');
