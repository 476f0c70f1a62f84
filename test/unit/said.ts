/**
 * What the nodes may show of a service's text: the key redacted before any cut (cutting first can leave a piece of
 * the key that redaction no longer recognises). The transport's own composition, `shown`, when it has one; else
 * redaction then excerpt, the order it must keep.
 */
import * as errors from '../../nodes/shared/transport/redaction';
import { excerpt, pageSaid, redactKey } from '../../nodes/shared/transport/redaction';
import { readQuota } from '../../nodes/shared/transport/retry';

type Shown = (text: string, redact: (text: string) => string, length?: number) => string;
const shown = (errors as { shown?: Shown }).shown;

export const said = (text: string, key: string) =>
	shown ? shown(text, (t) => redactKey(t, key)) : excerpt(redactKey(text, key));
/** What the nodes show of an HTML page: its title, else an excerpt. */
export const gist = (text: string) => pageSaid(text, 'text/html', (t) => t).said;
export const saidGist = (text: string, key: string) =>
	pageSaid(text, 'text/html', (t) => redactKey(t, key)).said;
/** readQuota with every quota header set to `text` (a service may send anything in any of them). */
export const quotaOf = (text: string) => readQuota(() => text);
