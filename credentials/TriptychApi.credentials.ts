import type {
	Icon,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { applyKey } from '../nodes/shared/transport/origin';
import { SERVICES, SERVICE_NAMES, styleLabel } from '../nodes/shared/transport/services';

/** Per service: its base address, how it takes the key (when it may take it in more than one way), its switch. */
const serviceFields: INodeProperties[] = SERVICE_NAMES.flatMap((service) => {
	const entry = SERVICES[service];
	const fields: INodeProperties[] = [
		{
			displayName: entry.label,
			name: entry.field,
			type: 'string',
			default: '',
			placeholder: entry.placeholder,
			description: entry.description,
		},
	];
	if (entry.styleField) {
		fields.push({
			displayName: styleLabel(service),
			name: entry.styleField,
			type: 'options',
			default: 'generic',
			description: `${entry.styleDescription}. Services with different keys: use one credential per service.`,
			options: Object.entries(entry.styles).map(([value, style]) => ({
				name: style!.name,
				value,
				description: style!.description,
			})),
		});
	}
	if (entry.keySwitch) fields.push({ ...entry.keySwitch, type: 'boolean', default: false });
	return fields;
});

/**
 * One API key and the base addresses of the three services. The nodes call `httpRequestWithAuthentication`, so the
 * key never passes through node code: n8n applies it here, the way the service at the request's origin takes it
 * (nodes/shared/transport/services.ts), and only for the origins of the configured services. Whatever asks for a
 * request elsewhere (a redirect, a next-page link, an image host) never gets the key.
 *
 * Its Test is a function of the nodes (`testedBy`, nodes/shared/credentialTest.ts): n8n's declarative test can show
 * only the code of a network failure, the function words every outcome with the address.
 */
export class TriptychApi implements ICredentialType {
	// a literal: n8n's linter reads the name from the source (it is CREDENTIALS_TYPE)
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
			description:
				'Sent to each service the way its API setting below says; never to any other address',
		},
		...serviceFields,
	];

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return applyKey(credentials, requestOptions);
	}
}
