import type {
	Icon,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

/** The origin of an address, or undefined when it is not an http(s) address. */
function originOf(address: unknown, base?: unknown): string | undefined {
	const key = `${String(base ?? '')}\n${String(address ?? '')}`;
	if (origins.has(key)) return origins.get(key);
	let origin: string | undefined;
	try {
		const url =
			typeof base === 'string' && base.trim()
				? new URL(String(address ?? ''), base.trim().replace(/\/*$/, '/'))
				: new URL(String(address ?? '').trim());
		origin = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
	} catch {
		origin = undefined;
	}
	// every request asks for the same few addresses: parsing them once saves ~40 µs per request
	if (origins.size >= 1000) origins.clear();
	origins.set(key, origin);
	return origin;
}

const origins = new Map<string, string | undefined>();

/** Why a request's address is unusable, naming the credential field it came from and what to do. */
function addressProblem(
	credentials: ICredentialDataDecryptedObject,
	requestOptions: IHttpRequestOptions,
): string {
	const raw = String(requestOptions.baseURL ?? requestOptions.url ?? '').trim();
	const field =
		[
			['Museum URL', credentials.museumUrl],
			['Quotes URL', credentials.quotesUrl],
			['Trigger URL', credentials.triggerUrl],
		].find(
			([, value]) =>
				String(value ?? '')
					.trim()
					.replace(/\/+$/, '') === raw,
		)?.[0] ?? 'address';
	return `The ${field} "${raw}" is not a web address: use the base address of the service, starting with https:// or http://, e.g. https://api.example.com.`;
}

/**
 * One API key and the base addresses of the three services. The nodes call `httpRequestWithAuthentication`, so the
 * key never passes through node code; n8n applies it here, as `Authorization: Bearer <key>`, and only to requests
 * for the origin of the Trigger URL or the Museum URL (and the Quotes URL when "Send API Key to Quotes Service" is
 * on). Whatever asks for a request elsewhere (a redirect, a next-page link, an image host) never gets the key.
 *
 * Its Test is a function of the nodes (`testedBy`, nodes/shared/credentialTest.ts): n8n's declarative test can show
 * only the code of a network failure (a bare ECONNREFUSED), the function words every outcome with the address.
 */
export class TriptychApi implements ICredentialType {
	name = 'triptychApi';

	displayName = 'Triptych API';

	documentationUrl =
		'https://github.com/triptych-nodes/n8n-nodes-triptych?tab=readme-ov-file#credentials';

	icon: Icon = { light: 'file:../icons/triptych.svg', dark: 'file:../icons/triptych.dark.svg' };

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description: 'Sent as "Authorization: Bearer &lt;key&gt;" to the trigger and museum services',
		},
		{
			displayName: 'Trigger URL',
			name: 'triggerUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://automations.example.com',
			description:
				'Base address of the trigger service; the node calls POST {Trigger URL}/trigger/. Leave empty if you do not use Fire Automation. The credential test calls only its root address, never /trigger/.',
		},
		{
			displayName: 'Museum URL',
			name: 'museumUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://museum-api.example.edu',
			description:
				'Base address of the museum service; the node calls GET {Museum URL}/object. Leave empty if you do not use Museum Object Search. The credential test checks this address first (then the Quotes URL, then the Trigger URL).',
		},
		{
			displayName: 'Quotes URL',
			name: 'quotesUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://quotes.example.com',
			description:
				'Base address of the quotes service; the node calls GET {Quotes URL}/tags. Leave empty if you do not use Quote Tags.',
		},
		{
			displayName: 'Send API Key to Quotes Service',
			name: 'sendKeyToQuotes',
			type: 'boolean',
			default: false,
			description:
				'Whether to send the API key to the quotes service too. Its authentication is not documented: leave this off unless it asks for a key.',
		},
	];

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const target = originOf(requestOptions.url, requestOptions.baseURL);
		if (target === undefined) throw new Error(addressProblem(credentials, requestOptions));
		const allowed = [
			credentials.triggerUrl,
			credentials.museumUrl,
			credentials.sendKeyToQuotes ? credentials.quotesUrl : undefined,
		].map((address) => originOf(address));
		if (target === undefined || !allowed.includes(target)) return requestOptions;
		return {
			...requestOptions,
			headers: {
				...requestOptions.headers,
				Authorization: `Bearer ${String(credentials.apiKey ?? '')}`,
			},
		};
	}
}
