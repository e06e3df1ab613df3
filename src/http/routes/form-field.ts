import { singleParam } from './params.js';

/** A form's fields as Fastify parses them: a repeated field is an array. */
export type Form = Record<string, string | string[] | undefined>;

/** A form field given once (a repeated one counts as its first), as text. */
export const field = (form: unknown, name: string): string => singleParam((form as Form | undefined)?.[name]) ?? '';
