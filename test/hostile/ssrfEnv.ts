/** n8n's SSRF protection on, with its default blocked ranges (loopback among them): read once, when n8n starts. */
process.env.N8N_SSRF_PROTECTION_ENABLED = 'true';
