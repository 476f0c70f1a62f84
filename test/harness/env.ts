// n8n-core reads its settings from the environment when its modules load: keep its user folder (encryption key,
// binary data) inside the project, and its own logging quiet.
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
process.env.N8N_USER_FOLDER ??= path.join(root, '.n8n-test');
process.env.N8N_LOG_LEVEL ??= 'silent';
process.env.N8N_DIAGNOSTICS_ENABLED = 'false';
process.env.N8N_BLOCK_ENV_ACCESS_IN_NODE ??= 'false';
