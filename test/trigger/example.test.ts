/**
 * The README example (README, Fire Automation section: a scheduled check that fires a trigger when a condition holds) runs as
 * written: Schedule Trigger → HTTP Request (pinned sensor reading) → If → Trigger Call.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { IConnections, IDataObject, INode } from 'n8n-workflow';

import { ROOT, runWorkflow } from '../harness/engine';
import { type TriggerServer, startTriggerServer } from '../servers';
import { creds } from './helpers';

let server: TriggerServer;

beforeAll(async () => {
	server = await startTriggerServer();
});
afterAll(async () => await server.close());
beforeEach(() => server.reset());

function example(): { nodes: INode[]; connections: IConnections } {
	const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
	const text = readme.slice(
		readme.indexOf('### Fire Automation'),
		readme.indexOf('## Retries, time limits'),
	);
	const block = [...text.matchAll(/```json\n([\s\S]*?)\n```/g)]
		.map((m) => m[1])
		.find((b) => b.includes('"connections"'));
	if (!block) throw new Error('no example workflow in the README Fire Automation section');
	const wf = JSON.parse(block) as { nodes: INode[]; connections: IConnections };
	wf.nodes.forEach((n, i) => (n.id ??= `example-${i}`));
	return wf;
}

async function runExample(reading: IDataObject) {
	return await runWorkflow(example(), {
		credentials: creds(server),
		pinData: { 'Read Sensor': [reading] },
	});
}

test('hot: the alert fires once with value1..value3 and an idempotency key', async () => {
	const result = await runExample({ temperature: 31.5, humidity: 40, sensor: 'gh-1' });
	expect(result.workflowError).toBeUndefined();
	expect(server.requests).toHaveLength(1);
	const req = server.requests[0];
	expect(req.path).toBe('/trigger/greenhouse_too_hot');
	expect(req.json).toEqual({ value1: 31.5, value2: 40, value3: 'gh-1' });
	// Idempotency Key Mode: Automatic — execution, node, run and item
	expect(req.headers['idempotency-key']).toMatch(/^n8n-.+-0-0$/);
	expect(result.output('Fire Alert')[0].json).toMatchObject({
		event: 'greenhouse_too_hot',
		message: 'Fired greenhouse_too_hot',
	});
});

test('not hot: nothing is fired', async () => {
	const result = await runExample({ temperature: 22, humidity: 55, sensor: 'gh-1' });
	expect(result.workflowError).toBeUndefined();
	expect(result.order).not.toContain('Fire Alert');
	expect(server.requests).toHaveLength(0);
});
