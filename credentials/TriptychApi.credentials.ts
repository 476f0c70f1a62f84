import type { Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

import { textProperty } from '../nodes/shared/fields';
import { SERVICES, SERVICE_NAMES, styleLabel } from '../nodes/shared/services';
import { applyKey } from '../nodes/shared/transport';

/** Per service: its base address, how it takes the key (when it may take it in more than one way), its switch. */
const serviceFields: INodeProperties[] = SERVICE_NAMES.flatMap((service) => {
	const { label, field, placeholder, description, styleField, keySwitch } = SERVICES[service];
	const fields = [textProperty(label, field, placeholder, { description })];
	if (styleField)
		fields.push({
			displayName: styleLabel(service),
			name: styleField,
			type: 'options',
			default: 'generic',
			description: `${SERVICES[service].styleDescription}. Services with different keys: use one credential per service.`,
			options: Object.entries(SERVICES[service].styles).map(([value, style]) => ({
				name: style!.name,
				value,
				description: style!.description,
			})),
		});
	if (keySwitch) fields.push({ ...keySwitch, type: 'boolean', default: false });
	return fields;
});

/** One API key, sent only to the services' origins. The nodes test it: n8n's own test shows only error codes. */
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
			default: '',
			description:
				'Sent to each service the way its API setting below says; never to any other address. The Art Institute of Chicago and Cleveland Museum of Art APIs need none: it may stay empty for them.',
		},
		...serviceFields,
	];

	authenticate = async (...args: Parameters<typeof applyKey>) => applyKey(...args);
}
