import type {
	IAuthenticateGeneric,
	IAuthenticateRuleResponseCode,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

/**
 * One API key and the base addresses of the three services. The key is sent as
 * `Authorization: Bearer <key>` by n8n's generic authentication: the nodes call
 * `httpRequestWithAuthentication`, so the key never passes through node code.
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
				'Base address of the trigger service; the node calls POST {Trigger URL}/trigger/. Leave empty if you do not use Trigger Call.',
		},
		{
			displayName: 'Museum URL',
			name: 'museumUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://museum-api.example.edu',
			description:
				'Base address of the museum service; the node calls GET {Museum URL}/object. The credential test uses it to check the key.',
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

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.apiKey}}',
			},
		},
	};

	// The test proves the key with the one authenticated call that changes nothing: a one-record museum search
	// (a trigger call would fire an automation). n8n's declarative tests only carry fixed messages, so each
	// message names the address that failed and how to fix it.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ String($credentials.museumUrl || "").trim().replace(/\\/+$/, "") }}',
			url: '/object',
			method: 'GET',
			qs: { limit: 1 },
			timeout: 15000,
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The museum service at the Museum URL rejected the API key (HTTP 401). Check the API Key.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message:
						'The museum service at the Museum URL refused the API key (HTTP 403). Check that the key may search objects.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'Nothing answers at {Museum URL}/object (HTTP 404). Check the Museum URL: it is the base address, without /object.',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'status',
					value: 'fail',
					message:
						'The museum service at the Museum URL answered with status "fail": the API key was not accepted.',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'status',
					value: 'error',
					message:
						'The museum service at the Museum URL answered with status "error". Check the API Key and the Museum URL.',
				},
			},
			// n8n's tester checks each rule by its own type (status codes on failed answers, body fields on
			// successful ones); the published type only admits arrays of one kind, hence the cast.
		] as unknown as IAuthenticateRuleResponseCode[],
	};
}
