/**
 * The main job (`npm run demo`): starts local demo servers for the three APIs on 127.0.0.1, and stand-ins of the
 * real services they are modelled on (Harvard Art Museums, Art Institute of Chicago, Cleveland Museum of Art, IFTTT
 * Webhooks, Quotable), with the real open data of ../shared/data when it is there, the project's own fixtures
 * otherwise; runs every example workflow of examples/ through n8n's execution engine with the built package (each
 * with the credentials it is written for), and prints what each node produced.
 */
import fs from 'node:fs';
import path from 'node:path';

import { ROOT, runWorkflow } from '../test/harness/engine';
import { CREDENTIAL_TYPE, credentialData, startServices } from './e2e/scenarios';
import {
	REAL_EXAMPLES,
	hasSharedData,
	startAicServer,
	startClevelandServer,
	startRealServices,
} from '../test/servers';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

function summarize(items: INodeExecutionData[]): string {
	const lines = [`${items.length} item${items.length === 1 ? '' : 's'}`];
	for (const item of items.slice(0, 3)) {
		const json = JSON.stringify(item.json);
		const binary = item.binary
			? ` + binary ${Object.entries(item.binary)
					.map(([k, b]) => `${k}: ${b.fileName} (${b.mimeType}, ${b.fileSize ?? '?'})`)
					.join(', ')}`
			: '';
		lines.push(`    ${json.length > 220 ? `${json.slice(0, 220)}…` : json}${binary}`);
	}
	if (items.length > 3) lines.push(`    … and ${items.length - 3} more`);
	return lines.join('\n');
}

async function main() {
	const started = Date.now();
	const realData = hasSharedData();
	console.log(
		realData
			? 'Data: real open data from ../shared/data (Tate and Carnegie Museum of Art records, Quotable tags)'
			: 'Data: the project fixtures (../shared/data is not here)',
	);
	const services = await startServices('auto');
	const { museum, quotes, trigger, images } = services;
	console.log(
		`Servers: museum ${museum.url}, quotes ${quotes.url}, trigger ${trigger.url}, images ${images.url}\n`,
	);
	const real = await startRealServices('auto');
	const [aic, cma] = await Promise.all([startAicServer(), startClevelandServer()]);
	console.log(
		`Stand-ins: Harvard Art Museums API ${real.harvard.url}, IFTTT Webhooks ${real.ifttt.url}, Quotable ${real.quotable.url}, Art Institute of Chicago API ${aic.apiUrl}, Cleveland Museum of Art API ${cma.apiUrl}\n`,
	);
	// examples/public-domain-three-museums.json: one credential per museum
	const credentialsById = {
		REPLACE_WITH_YOUR_HARVARD_CREDENTIAL_ID: {
			apiKey: real.apiKey,
			museumUrl: real.harvard.url,
			museumApi: 'harvard',
		},
		REPLACE_WITH_YOUR_AIC_CREDENTIAL_ID: { apiKey: '', museumUrl: aic.apiUrl, museumApi: 'artic' },
		REPLACE_WITH_YOUR_CLEVELAND_CREDENTIAL_ID: {
			apiKey: '',
			museumUrl: cma.apiUrl,
			museumApi: 'cleveland',
		},
	};
	const credentialFor = (file: string) => ({
		[CREDENTIAL_TYPE]:
			REAL_EXAMPLES.find((e) => e.file === `examples/${file}`)?.credential(real) ??
			credentialData(services),
	});

	const dir = path.join(ROOT, 'examples');
	const files = fs.existsSync(dir)
		? fs
				.readdirSync(dir)
				.filter((f) => f.endsWith('.json'))
				.sort()
		: [];
	let failures = 0;
	try {
		for (const file of files) {
			const workflow = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as IDataObject;
			console.log(`━━ ${workflow.name ?? file} (examples/${file})`);
			const t = Date.now();
			const result = await runWorkflow(workflow as never, {
				credentials: credentialFor(file),
				credentialsById,
			});
			for (const name of result.order) {
				const error = result.error(name);
				console.log(
					`  ▸ ${name}: ${error ? `ERROR ${error.message}` : summarize(result.output(name))}`,
				);
			}
			if (result.workflowError) {
				failures++;
				console.log(`  ✗ stopped: ${result.workflowError.message}`);
			} else {
				console.log(`  ✓ finished in ${Date.now() - t} ms`);
			}
			console.log('');
		}
		console.log(
			`Trigger service received ${trigger.deliveries.length} deliver${trigger.deliveries.length === 1 ? 'y' : 'ies'}` +
				trigger.deliveries
					.slice(0, 5)
					.map(
						(d) =>
							`\n  ${d.event || '(no event)'} ${JSON.stringify(d.body)}${d.idempotencyKey ? ` [Idempotency-Key ${d.idempotencyKey}]` : ''}`,
					)
					.join(''),
		);
		console.log(
			`IFTTT Webhooks stand-in fired ${real.ifttt.deliveries.length} event(s)` +
				real.ifttt.deliveries
					.map((d) => `\n  ${d.event} (${d.route} route) ${JSON.stringify(d.values ?? d.payload)}`)
					.join(''),
		);
		console.log(
			`Image host served ${images.requests.length} image(s); Authorization header seen there: ${images.authorizationSeen}`,
		);
	} finally {
		await Promise.all([services.close(), real.close(), aic.close(), cma.close()]);
	}
	console.log(
		`\n${files.length} example workflow(s), ${failures} failed, in ${((Date.now() - started) / 1000).toFixed(1)} s`,
	);
	process.exit(failures || !files.length ? 1 : 0);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
