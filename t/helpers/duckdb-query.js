// SPDX-License-Identifier: LGPL-2.1-or-later
// duckdb-query.js SQL...: run each SQL statement in one in-memory DuckDB
// (the @duckdb/node-api package, found through NODE_PATH) and print the
// rows of the last one, one line each, the columns separated by tabs.
'use strict';
const { DuckDBInstance } = require('@duckdb/node-api');

(async () => {
	const db = await DuckDBInstance.create(':memory:');
	const c = await db.connect();
	let r;
	for (const sql of process.argv.slice(2))
		r = await c.runAndReadAll(sql);
	for (const row of r.getRows())
		console.log(row.map((v) => (v === null ? 'NULL' : String(v))).join('\t'));
})().catch((e) => {
	console.error('duckdb-query.js: ' + e.message);
	process.exit(2);
});
