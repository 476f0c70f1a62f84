import type {
	IAuthenticateRuleResponseCode,
	Icon,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

/** The origin of an address, or undefined when it is not an http(s) address. */
function originOf(address: unknown, base?: unknown): string | undefined {
	try {
		const url =
			typeof base === 'string' && base.trim()
				? new URL(String(address ?? ''), base.trim().replace(/\/*$/, '/'))
				: new URL(String(address ?? '').trim());
		return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
	} catch {
		return undefined;
	}
}

/** Which address the test used, for its fixed messages. */
const TESTED = 'the Museum URL (or, when that is empty, the Quotes URL, then the Trigger URL)';

/** What the credential test asks for when no address is filled in (`authenticate` explains it). */
const NO_ADDRESS = 'triptych:no-address';

/**
 * The credential test's choice of address, as expression code: the first filled in of Museum URL, Quotes URL and
 * Trigger URL. An empty or malformed address reaches `authenticate`, which refuses it with a message saying what
 * to fix (n8n's editor shows an error's message as the test's result, but only the code of a network error).
 */
const PICK_ADDRESS = `
	const fields = [
		['Museum URL', $credentials.museumUrl, '/object'],
		['Quotes URL', $credentials.quotesUrl, '/tags'],
		['Trigger URL', $credentials.triggerUrl, '/'],
	];
	const set = fields.filter((f) => String(f[1] || '').trim() !== '');
	const picked = set.length
		? { url: String(set[0][1]).trim().replace(/\\/+$/, ''), path: set[0][2] }
		: { url: '${NO_ADDRESS}', path: '' };
`;

/** Why a request's address is unusable, naming the credential field it came from and what to do. */
function addressProblem(
	credentials: ICredentialDataDecryptedObject,
	requestOptions: IHttpRequestOptions,
): string {
	const raw = String(requestOptions.baseURL ?? requestOptions.url ?? '').trim();
	if (raw === NO_ADDRESS || raw === '') {
		return 'No address to test: fill in the Museum URL, the Quotes URL or the Trigger URL (those of the services you use).';
	}
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

	// The test checks what is configured: the Museum URL (a one-record search), or when it is empty the Quotes URL (a
	// one-tag list), or when both are empty the Trigger URL's root (never its /trigger/ path: that would fire an
	// automation). n8n's declarative tests only carry fixed messages, so each names the addresses it may concern;
	// an empty or malformed address is reported by the expression itself, before any request.
	test: ICredentialTestRequest = {
		request: {
			baseURL: `={{ (() => { ${PICK_ADDRESS} return picked.url; })() }}`,
			url: `={{ (() => { ${PICK_ADDRESS} return picked.path; })() }}`,
			method: 'GET',
			qs: { limit: 1 },
			timeout: 15000,
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: `The service at ${TESTED} rejected the API key (HTTP 401). Check the API Key.`,
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message: `The service at ${TESTED} refused the API key (HTTP 403). Check that the key may read from it.`,
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: `Nothing answers at ${TESTED} (HTTP 404). Use the service's base address, without /object or /tags.`,
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'status',
					value: 'fail',
					message: `The service at ${TESTED} answered with status "fail": the API key was not accepted.`,
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'status',
					value: 'error',
					message: `The service at ${TESTED} answered with status "error". Check the API Key and the address.`,
				},
			},
			// n8n's tester checks each rule by its own type (status codes on failed answers, body fields on
			// successful ones); the published type only admits arrays of one kind, hence the cast.
		] as unknown as IAuthenticateRuleResponseCode[],
	};
}
