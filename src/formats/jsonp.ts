import { errors } from '../errors.js';
import type { FormatParam, ScriptParam } from './format.js';

export const jsonpContentType = 'application/javascript; charset=utf-8';

/** A JavaScript identifier or dotted path of them, ASCII only, at most 128 characters. */
const callbackPattern = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;

export function isValidCallback(name: string): boolean {
  return name.length <= 128 && callbackPattern.test(name);
}

/** `callback`: the function a JSONP body calls; it is written into a script as code, so only a name passes. */
export const callbackParam: FormatParam = { valid: isValidCallback, invalid: errors.callbackInvalid };

export const jsonpScript: ScriptParam = { param: 'callback', name: 'jsonp', contentType: jsonpContentType, extension: 'js' };
