import type { IDataObject } from 'n8n-workflow';

/** A JSON object (not a list, not null): what a service's record or envelope must be. */
export const isPlainObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

export const present = (value: unknown) => value !== undefined && value !== null && value !== '';

/** A service's value as text, whatever it is: JSON can hold an object whose "toString" is not a function. */
export function plainText(value: unknown): string {
	if (typeof value === 'string') return value;
	if (typeof value !== 'object' || value === null) return String(value);
	try {
		return JSON.stringify(value);
	} catch {
		return '';
	}
}

/** "a", "a and b", "a, b and c"; or with "or" */
export const listed = (names: string[], last = 'and'): string =>
	names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} ${last} ${names.at(-1)}`;

/** What a service sent where something else was expected, in a few words ("a list", "an object with the keys a, b"). */
export function describeValue(value: unknown): string {
	if (value === undefined || value === '') return 'an empty body';
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'string') return `a string (${value.slice(0, 40)})`;
	if (typeof value !== 'object') return `a ${typeof value}`;
	const keys = Object.keys(value);
	if (!keys.length) return 'an empty object';
	return `an object with the keys ${keys.slice(0, 8).join(', ')}${keys.length > 8 ? ', …' : ''}`;
}
